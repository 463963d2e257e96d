/**
 * The lifecycle's and webhooks' settings on the broker's side: the settings schema of this folder, composed into the broker's by
 * broker/config/config-schema.ts (docs/config.md is generated from it). Code here takes its defaults
 * from `LIFECYCLE_DEFAULTS`, never from an inline number (scripts/check-inline-defaults.mjs).
 */
import { z } from "zod";
import { ms } from "../config/schema-parts.js";

export const lifecycleSettings = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe("Run the lifecycle poller (PR state for watched sessions, events, webhooks)."),
    settings: z
      .record(z.string(), z.union([z.number(), z.boolean()]))
      .default({})
      .describe(
        'Overrides of the lifecycle\'s settings (docs/lifecycle.md), e.g. {"cycleIntervalMs": 10000, "enrichmentBatchSize": 25}.',
      ),
    leaseMs: ms
      .min(1000)
      .default(15_000)
      .describe(
        "The poller's lease (one poller per Redis): another broker takes over this long after the holder dies.",
      ),
    forwardTimeoutMs: ms
      .min(100)
      .default(10_000)
      .describe(
        "How long a broker that is not the poller waits for the poller's answer to a forwarded call.",
      ),
    requestDeadlineMs: ms
      .min(1000)
      .default(60_000)
      .describe("How long one of the poller's requests may wait for budget."),
  })
  .prefault({});

export const webhooksSettings = z
  .strictObject({
    secret: z
      .string()
      .optional()
      .describe(
        "Webhook secret for X-Hub-Signature-256 (or AO_BROKER_WEBHOOK_SECRET). Without it the endpoint answers 404.",
      ),
  })
  .prefault({});

/** Every `lifecycleSettings` default, as the schema resolves an absent section. */
export const LIFECYCLE_DEFAULTS = Object.freeze(lifecycleSettings.parse(undefined));
