/**
 * The budget's settings: the settings schema of this folder, composed into the broker's by
 * broker/config/config-schema.ts (docs/config.md is generated from it). Code here takes its defaults
 * from `BUDGET_DEFAULTS`, never from an inline number (scripts/check-inline-defaults.mjs).
 */
import { z } from "zod";
import { fraction } from "../config/schema-parts.js";

export const budgetSettings = z
  .strictObject({
    reserve: z
      .strictObject({
        lifecycle: fraction.default(0.1).describe("Share of each window kept for the lifecycle poller."),
        interactive: fraction.default(0.05).describe("Further share kept for interactive agent reads."),
      })
      .prefault({}),
    pace: z
      .strictObject({
        burstFraction: z
          .number()
          .positive()
          .max(1)
          .default(0.1)
          .describe(
            "Share of a window that may be spent at once; the rest no faster than GitHub refills it. 1 = no pacing.",
          ),
        burstMin: z
          .number()
          .int()
          .min(0)
          .default(100)
          .describe("Smallest burst, in points or requests; windows this small are not paced."),
        keepFraction: fraction
          .default(0.02)
          .describe(
            "Share of a window a session beyond its fair share (or past this much spend) leaves in the paced budget for lighter ones.",
          ),
      })
      .prefault({}),
    windowSeconds: z
      .number()
      .positive()
      .default(3600)
      .describe(
        "Length of GitHub's core and graphql windows; change only for a simulator with compressed time.",
      ),
    local: z
      .strictObject({
        paceFraction: z
          .number()
          .positive()
          .max(1)
          .default(0.5)
          .describe("Share of GitHub's refill rate this broker spends while Redis is unreachable."),
        burst: z
          .number()
          .int()
          .min(1)
          .default(5)
          .describe("Requests it may send at once in that state before the pace applies."),
      })
      .prefault({})
      .describe("The local budget used while Redis is unreachable (docs/reliability.md)."),
  })
  .prefault({});

/** Every `budgetSettings` default, as the schema resolves an absent section. */
export const BUDGET_DEFAULTS = Object.freeze(budgetSettings.parse(undefined));
