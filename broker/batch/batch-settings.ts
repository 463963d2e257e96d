/**
 * Batching's settings: the settings schema of this folder, composed into the broker's by
 * broker/config/config-schema.ts (docs/config.md is generated from it). Code here takes its defaults
 * from `BATCHING_DEFAULTS`, never from an inline number (scripts/check-inline-defaults.mjs).
 */
import { z } from "zod";
import { ms } from "../config/schema-parts.js";
import { DEFAULT_BATCH_BUDGETS_MS } from "./core/batch-class.js";
import { STALENESS_BOUND_MS } from "./core/tight-budget.js";

export const batchingSettings = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe("Merge compatible GraphQL queries from different sessions into one aliased query."),
    latencyBudgetMs: z
      .strictObject({
        interactive: ms
          .default(DEFAULT_BATCH_BUDGETS_MS.interactive)
          .describe("How long a first-time interactive query may wait for partners."),
        immutable: ms
          .default(DEFAULT_BATCH_BUDGETS_MS.immutable)
          .describe(
            "A first read of immutable facts only (a PR's id, number, url, head branch): kept 5 min once read, free inside a merged query.",
          ),
        repeat: ms
          .default(DEFAULT_BATCH_BUDGETS_MS.repeat)
          .describe("A query the same session sent within the last minute (a polling loop)."),
        watch: ms
          .default(DEFAULT_BATCH_BUDGETS_MS.watch)
          .describe("Watch loops: gh pr checks --watch, gh run watch."),
        lifecycle: ms.default(DEFAULT_BATCH_BUDGETS_MS.lifecycle).describe("The lifecycle poller's queries."),
        background: ms.default(DEFAULT_BATCH_BUDGETS_MS.background).describe("Background work."),
      })
      .prefault({}),
    tightBudget: z
      .strictObject({
        enabled: z
          .boolean()
          .default(true)
          .describe("Grow agents' batching windows when the GraphQL budget is tight."),
        growFrom: z
          .number()
          .min(0)
          .default(0.9)
          .describe(
            "Spend pressure (the current pace's spend until the reset over what is left) at which windows start to grow.",
          ),
        fullAt: z.number().min(0).default(1.2).describe("Spend pressure at which windows reach maxWindowMs."),
        maxWindowMs: ms
          .max(STALENESS_BOUND_MS)
          .default(5_000)
          .describe("The longest a window grows to; at most the 30 s staleness bound."),
        minPaceMs: ms
          .default(300_000)
          .describe(
            "The pace behind the spend pressure is measured over at least this long, so a burst at the start of a budget window does not grow every window.",
          ),
      })
      .prefault({}),
    partnerHold: z
      .strictObject({
        enabled: z
          .boolean()
          .default(true)
          .describe(
            "Let a first-time read wait for a partner when other sessions' recent queries make one likely (a query alone costs a whole point).",
          ),
        windowMs: ms
          .max(STALENESS_BOUND_MS)
          .default(600)
          .describe("How long a first-time read waits when a partner is likely."),
        minExpectedPartners: z
          .number()
          .min(0)
          .default(0.1)
          .describe(
            "Other sessions' queries expected within windowMs (their recent arrivals per ms × windowMs) at which a first-time read waits.",
          ),
        rateWindowMs: ms
          .min(1000)
          .default(60_000)
          .describe("Other sessions' queries are counted over this long."),
        maxEntries: z.number().int().min(1).default(10_000).describe("Recent arrivals remembered."),
        lifecycle: z
          .boolean()
          .default(true)
          .describe(
            "The lifecycle poller's queries (its enrichment, once a poll cycle) wait for a partner too, on the same prediction (decision 0025): alone each costs a whole point; the cycle, and the vouches it sends, are then up to windowMs later.",
          ),
      })
      .prefault({}),
    mutations: z
      .strictObject({
        windowMs: ms
          .max(10_000)
          .default(4_000)
          .describe(
            "How long a GraphQL mutation waits for other sessions' mutations to go with it as one aliased mutation (one point and one write-lane turn for all); 0 sends every mutation alone.",
          ),
        busyWithinMs: ms
          .default(10_000)
          .describe(
            "A mutation waits for partners only when another session sent one within this long; otherwise it goes at once.",
          ),
        maxMembers: z
          .number()
          .int()
          .min(1)
          .max(50)
          .default(10)
          .describe("Mutations merged into one request (1: never merge)."),
      })
      .prefault({}),
    maxMembers: z.number().int().min(2).max(100).default(50).describe("Queries merged into one."),
    maxCost: z
      .number()
      .int()
      .min(1)
      .max(500)
      .default(20)
      .describe("Largest computed point cost of a merged query."),
    repeatWindowMs: z
      .number()
      .int()
      .min(1000)
      .default(60_000)
      .describe(
        "A query the same session sent again within this long is a repeat (the repeat latency budget).",
      ),
    repeatMaxEntries: z
      .number()
      .int()
      .min(1)
      .default(10_000)
      .describe("Queries remembered to recognise repeats."),
    analysisCacheEntries: z
      .number()
      .int()
      .min(1)
      .default(500)
      .describe("Query texts whose batching analysis is kept per scheduler."),
  })
  .prefault({});

/** Every `batchingSettings` default, as the schema resolves an absent section. */
export const BATCHING_DEFAULTS = Object.freeze(batchingSettings.parse(undefined));
