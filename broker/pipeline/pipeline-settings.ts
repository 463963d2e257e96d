/**
 * The pipeline's settings (coalescing): the settings schema of this folder, composed into the
 * broker's by broker/config/config-schema.ts (docs/config.md is generated from it). Code here takes
 * its defaults from `COALESCE_DEFAULTS`, never from an inline number (scripts/check-inline-defaults.mjs).
 */
import { z } from "zod";
import { ms } from "../config/schema-parts.js";

export const coalesceSettings = z
  .strictObject({
    lockTtlMs: ms
      .min(100)
      .default(6_000)
      .describe(
        "Life of the claim on an identical read in flight (any broker); renewed while the request runs, so it only bounds how long a dead broker's claim blocks others.",
      ),
    releaseRetryMs: ms.default(500).describe("Pause before a failed release of that claim is tried again."),
    maxPublishBytes: z
      .number()
      .int()
      .min(1024)
      .default(2 * 1024 * 1024)
      .describe(
        "Largest answer handed to waiting brokers over pub/sub; they read larger ones from the cache.",
      ),
  })
  .prefault({});

/** Every `coalesceSettings` default, as the schema resolves an absent section. */
export const COALESCE_DEFAULTS = Object.freeze(coalesceSettings.parse(undefined));
