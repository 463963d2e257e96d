/**
 * The upstream's and the queue's settings: the settings schema of this folder, composed into the broker's by
 * broker/config/config-schema.ts (docs/config.md is generated from it). Code here takes its defaults
 * from `UPSTREAM_DEFAULTS` and `QUEUE_DEFAULTS`, never from an inline number (scripts/check-inline-defaults.mjs).
 */
import { z } from "zod";
import { ms } from "../config/schema-parts.js";
import { DEFAULT_UPSTREAM_POLICY } from "./upstream-policy.js";

export const upstreamSettings = z
  .strictObject({
    url: z.url().default("https://api.github.com").describe("GitHub API base URL."),
    tokenFile: z.string().optional().describe("File holding the PAT (else GITHUB_TOKEN or GH_TOKEN)."),
    timeoutMs: ms.default(30_000).describe("Per-request upstream timeout."),
    forwardClientHost: z
      .boolean()
      .default(false)
      .describe(
        "Send X-Forwarded-Host/-Proto with the host the client used, so an upstream that builds URLs from it (the simulator) answers as if asked directly. On with --simulate.",
      ),
    connectTimeoutMs: ms
      .min(100)
      .default(10_000)
      .describe("Time to open a connection to the upstream before the attempt fails."),
    connections: z
      .number()
      .int()
      .min(1)
      .max(1024)
      .default(64)
      .describe("Connections kept open to the upstream."),
  })
  .prefault({});

export const queueSettings = z
  .strictObject({
    concurrency: z
      .number()
      .int()
      // One slot is the write lane's and the rest are the reads': with 1 the read lane would get
      // no worker at all (resolveUpstreamPolicy refuses it too, but only once the broker starts).
      .min(2)
      .max(99)
      .default(50)
      .describe(
        "Upstream requests in flight across all brokers (GitHub allows 100): one is the write lane's, the rest are reads', so at least 2.",
      ),
    pacing: z
      .strictObject({
        mutationSpacingMs: ms
          .default(DEFAULT_UPSTREAM_POLICY.mutationSpacingMs)
          .describe("Least time between two mutations sent upstream (any broker)."),
        graphqlPointsPerMinute: z
          .number()
          .int()
          .positive()
          .default(DEFAULT_UPSTREAM_POLICY.graphqlPointsPerMinute)
          .describe("GraphQL points sent per minute at most (GitHub's secondary limit is 2,000)."),
        restPointsPerMinute: z
          .number()
          .int()
          .positive()
          .default(DEFAULT_UPSTREAM_POLICY.restPointsPerMinute)
          .describe("REST points sent per minute at most (GitHub's secondary limit is 900)."),
        contentCreationPerMinute: z
          .number()
          .int()
          .positive()
          .default(DEFAULT_UPSTREAM_POLICY.contentCreationPerMinute)
          .describe("Content-creating requests per minute at most (GitHub allows 80)."),
        contentCreationPerHour: z
          .number()
          .int()
          .positive()
          .default(DEFAULT_UPSTREAM_POLICY.contentCreationPerHour)
          .describe("Content-creating requests per hour at most (GitHub allows 500)."),
        secondaryMinuteMs: z
          .number()
          .int()
          .min(600)
          .multipleOf(60)
          .default(DEFAULT_UPSTREAM_POLICY.secondaryMinuteMs)
          .describe(
            "Length of the secondary limits' minute (the hour is 60 of them); change only for a simulator with compressed time (its secondaryMinuteMs must match).",
          ),
      })
      .prefault({})
      .describe(
        "The upstream queue's pacing below GitHub's secondary limits; the benchmark scales these with its time compression.",
      ),
    degradedConcurrency: z
      .number()
      .int()
      .min(1)
      .max(99)
      .default(10)
      .describe(
        "Upstream requests in flight from this broker while Redis is unreachable (then no queue is shared; each broker sends directly under local limits).",
      ),
  })
  .prefault({});

/** Every `upstreamSettings` default, as the schema resolves an absent section. */
export const UPSTREAM_DEFAULTS = Object.freeze(upstreamSettings.parse(undefined));

/** Every `queueSettings` default, as the schema resolves an absent section. */
export const QUEUE_DEFAULTS = Object.freeze(queueSettings.parse(undefined));
