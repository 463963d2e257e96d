/**
 * The broker's observability settings: the settings schema of this folder, composed into the
 * broker's by broker/config/config-schema.ts (docs/config.md is generated from it). Code here takes
 * its defaults from `OBSERVABILITY_DEFAULTS`, never from an inline number (scripts/check-inline-defaults.mjs).
 */
import { z } from "zod";
import { ms } from "../config/schema-parts.js";

export const observabilitySettings = z
  .strictObject({
    gaugeIntervalMs: ms
      .min(100)
      .default(5_000)
      .describe("How often the budget and queue gauges (metrics) are sampled."),
  })
  .prefault({});

/** Every `observabilitySettings` default, as the schema resolves an absent section. */
export const OBSERVABILITY_DEFAULTS = Object.freeze(observabilitySettings.parse(undefined));
