/**
 * The broker's configuration: one zod schema, validated once at the edge (CLI flags, environment,
 * config file) and deep-frozen. Each subsystem declares its section with its defaults beside its code
 * (`<folder>/*-settings.ts`) and this schema composes them; defaults live there and nowhere else; `.describe()` texts generate
 * docs/config.md (scripts/gen-config-docs.mjs, checked by a test). Internal modules take typed
 * options derived from this and never re-validate.
 */
import { z } from "zod";
import { batchingSettings } from "../batch/batch-settings.js";
import { budgetSettings } from "../budget/budget-settings.js";
import { cacheSettings } from "../cache/cache-settings.js";
import { gatewaySettings } from "../gateway/gateway-settings.js";
import { ipcSettings } from "../ipc/ipc-settings.js";
import { lifecycleSettings, webhooksSettings } from "../lifecycle/lifecycle-settings.js";
import { observabilitySettings } from "../observability/observability-settings.js";
import { coalesceSettings } from "../pipeline/pipeline-settings.js";
import { redisSettings } from "../redis/redis-settings.js";
import { sessionsSettings } from "../sessions/sessions-settings.js";
import { queueSettings, upstreamSettings } from "../upstream/upstream-settings.js";
import { hostPort } from "./schema-parts.js";

export const configSchema = z.strictObject({
  listen: hostPort
    .default("127.0.0.1:7878")
    .describe("Gateway HTTP listener (HOST:PORT). Loopback unless told otherwise."),
  socket: z
    .string()
    .optional()
    .describe("IPC Unix socket path. Default: $AO_BROKER_SOCKET or ~/.ao-broker/broker.sock."),
  stateDir: z
    .string()
    .optional()
    .describe("State directory (the private redis-server lives here). Default: ~/.ao-broker."),
  simulate: z.boolean().default(false).describe("Run an embedded github-sim as upstream; no PAT needed."),
  upstream: upstreamSettings,
  redis: redisSettings,
  gateway: gatewaySettings,
  ipc: ipcSettings,
  sessions: sessionsSettings,
  cache: cacheSettings,
  coalesce: coalesceSettings,
  budget: budgetSettings,
  batching: batchingSettings,
  lifecycle: lifecycleSettings,
  queue: queueSettings,
  webhooks: webhooksSettings,
  observability: observabilitySettings,
  logLevel: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .default("info")
    .describe("pino log level."),
});

export type ConfigInput = z.input<typeof configSchema>;
export type Config = z.output<typeof configSchema>;
