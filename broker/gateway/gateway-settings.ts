/**
 * The gateway's settings: the settings schema of this folder, composed into the broker's by
 * broker/config/config-schema.ts (docs/config.md is generated from it). Code here takes its defaults
 * from `GATEWAY_DEFAULTS`, never from an inline number (scripts/check-inline-defaults.mjs).
 */
import { z } from "zod";
import { ms } from "../config/schema-parts.js";

export const gatewaySettings = z
  .strictObject({
    publicHost: z
      .string()
      .default("api.github.localhost")
      .describe("API host gh uses in proxy mode (GH_HOST=github.localhost)."),
    maxBodyBytes: z
      .number()
      .int()
      .min(1024)
      .default(25 * 1024 * 1024)
      .describe("Largest request body accepted (413 beyond)."),
    maxConnections: z
      .number()
      .int()
      .min(8)
      .default(512)
      .describe(
        "Gateway connections open at once. One more evicts, in order: connections that have not shown a valid broker token, then authenticated keep-alive ones waiting for their next request; an authenticated request in progress is never cut (503 when all are). With ipc.maxConnections (256) it leaves ~256 of a 1024 file-descriptor limit for upstream, Redis and files.",
      ),
    headerTimeoutMs: ms
      .min(100)
      .default(10_000)
      .describe(
        "Time a connection has to complete a request's headers, from connect (or from its last answer while no valid token was seen on it); then it is closed. Stops slowloris clients.",
      ),
    idleTimeoutMs: ms
      .min(100)
      .default(65_000)
      .describe("How long an authenticated keep-alive connection may wait for its next request."),
    defaultDeadlineMs: ms
      .default(10 * 60_000)
      .describe("How long a request may wait for budget before the caller gets GitHub's rate-limit error."),
    allowRemoteMetrics: z
      .boolean()
      .default(false)
      .describe("Serve /metrics to non-loopback peers (for Prometheus in a container)."),
    blobHosts: z
      .array(z.string())
      .default([
        "pipelines.actions.githubusercontent.com",
        "results-receiver.actions.githubusercontent.com",
        "productionresultssa0.blob.core.windows.net",
      ])
      .describe(
        "Hosts of pre-signed artifact/log downloads that gh follows after a redirect; fetched without the PAT.",
      ),
  })
  .prefault({});

/** Every `gatewaySettings` default, as the schema resolves an absent section. */
export const GATEWAY_DEFAULTS = Object.freeze(gatewaySettings.parse(undefined));
