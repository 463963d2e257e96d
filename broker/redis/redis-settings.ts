/**
 * Redis's settings: the settings schema of this folder, composed into the broker's by
 * broker/config/config-schema.ts (docs/config.md is generated from it). Code here takes its defaults
 * from `REDIS_DEFAULTS`, never from an inline number (scripts/check-inline-defaults.mjs).
 */
import { z } from "zod";
import { ms } from "../config/schema-parts.js";

export const redisSettings = z
  .strictObject({
    url: z
      .string()
      .optional()
      .describe(
        "redis://, rediss:// or unix:// location. Default: REDIS_URL, else 127.0.0.1:6379 if it answers, else a private redis-server.",
      ),
    prefix: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,32}$/)
      .default("aob")
      .describe(
        "Key prefix. Keys live under <prefix>:<fingerprint of the token's user id and the upstream URL>, so only brokers of one identity share a budget; they use the same prefix.",
      ),
    startTimeoutMs: ms
      .min(100)
      .default(10_000)
      .describe("How long a private redis-server may take to answer after it is started."),
    identityAttempts: z
      .number()
      .int()
      .min(1)
      .max(10)
      .default(3)
      .describe("Tries of GET /user to learn the token's identity (the key namespace) at start."),
    identityRetryDelayMs: ms
      .default(1000)
      .describe("Pause before the next identity try, times the number of tries so far."),
  })
  .prefault({});

/** Every `redisSettings` default, as the schema resolves an absent section. */
export const REDIS_DEFAULTS = Object.freeze(redisSettings.parse(undefined));
