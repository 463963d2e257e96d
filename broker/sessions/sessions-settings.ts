/**
 * The sessions' settings: the settings schema of this folder, composed into the broker's by
 * broker/config/config-schema.ts (docs/config.md is generated from it). Code here takes its defaults
 * from `SESSIONS_DEFAULTS`, never from an inline number (scripts/check-inline-defaults.mjs).
 */
import { z } from "zod";
import { ms } from "../config/schema-parts.js";

export const sessionsSettings = z
  .strictObject({
    sessionTokenTtlSeconds: z
      .number()
      .int()
      .min(60)
      .default(7 * 24 * 3600)
      .describe("Lifetime of a session token."),
    invocationTokenTtlSeconds: z
      .number()
      .int()
      .min(10)
      .default(6 * 3600)
      .describe("Lifetime of a per-invocation (one gh command) token."),
    autoRegister: z
      .boolean()
      .default(true)
      .describe("Open a session on first use by the shim when none exists (local brokers)."),
    callerCacheTtlMs: ms
      .default(2000)
      .describe("How long a resolved broker token is trusted without asking Redis again."),
    callerStaleGraceMs: ms
      .default(15 * 60_000)
      .describe("How long a recent token resolution stands in while Redis is unreachable."),
    callerMaxCached: z
      .number()
      .int()
      .min(1)
      .default(10_000)
      .describe("Resolved broker tokens kept in memory."),
    unverifiedWaitMs: ms
      .default(10_000)
      .describe(
        "How long a token never seen before waits for an unreachable Redis to come back before the caller gets a 503.",
      ),
    knownSessionsMax: z
      .number()
      .int()
      .min(1)
      .default(10_000)
      .describe("Sessions this broker remembers in memory (to serve them while Redis is unreachable)."),
    knownTokensPerSession: z
      .number()
      .int()
      .min(1)
      .default(8)
      .describe("Broker tokens remembered per session for the same purpose."),
    knownRetainMs: ms.default(24 * 3600 * 1000).describe("How long an unused remembered session is kept."),
    callsRetained: z
      .number()
      .int()
      .min(1000)
      .default(200_000)
      .describe("Call records kept in Redis (`<prefix>:calls`, the stream behind `ao-broker calls`)."),
  })
  .prefault({});

/** Every `sessionsSettings` default, as the schema resolves an absent section. */
export const SESSIONS_DEFAULTS = Object.freeze(sessionsSettings.parse(undefined));
