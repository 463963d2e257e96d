/**
 * The response cache's settings: the settings schema of this folder, composed into the broker's by
 * broker/config/config-schema.ts (docs/config.md is generated from it). Code here takes its defaults
 * from `CACHE_DEFAULTS`, never from an inline number (scripts/check-inline-defaults.mjs).
 */
import { z } from "zod";
import { ms } from "../config/schema-parts.js";

export const cacheSettings = z
  .strictObject({
    restFreshMs: ms
      .default(10_000)
      .describe(
        "REST reads served without any upstream call for this long; then revalidated with If-None-Match (a 304 is free).",
      ),
    graphqlFreshMs: z
      .strictObject({
        checks: ms
          .default(10_000)
          .describe("Queries touching CI state (statusCheckRollup, checkRuns, checkSuites)."),
        pullRequest: ms.default(15_000).describe("Queries about pull requests."),
        issue: ms.default(30_000).describe("Queries about issues and their comments."),
        other: ms.default(15_000).describe("Anything else."),
      })
      .prefault({}),
    finalAnswerMs: ms
      .default(21_600_000)
      .describe(
        "REST answers about finished CI (a completed job or check run, its annotations, a completed run and its jobs, a job's log) never change: once the stored answer says so it is served from the cache this long, whatever moves, and never refreshed (a completed run still follows a re-run). 0 turns it off.",
      ),
    guardedFreshMs: ms
      .default(20_000)
      .describe(
        "GraphQL answers about PRs the lifecycle watches stay served this long after its guards last saw nothing change (each change it sees invalidates them first); 0 turns it off.",
      ),
    staleWhileRevalidateMs: ms
      .max(30_000)
      .default(10_000)
      .describe(
        "After a signal (a lifecycle guard, a webhook) moved an answer agents read, that answer is still served (x-ao-broker-cache: STALE_REVALIDATING) for at most this long after the change was seen, while the broker fetches it again once for everyone. What an agent sees is then at most the signal's lag (one active guard cycle, 10 s by default) plus this behind GitHub: 20 s by default, never more than 30 s for the setting alone. Never applies to a move caused by a write, nor to a request with its own If-None-Match. 0 turns it off.",
      ),
    refresh: z
      .strictObject({
        enabled: z
          .boolean()
          .default(true)
          .describe(
            "Refresh once, for everyone: when a signal or a write moves answers agents recently read, this broker fetches them again itself (one merged GraphQL query, conditional GETs for REST) so the agents' next reads are hits.",
          ),
        windowMs: ms
          .max(5_000)
          .default(150)
          .describe(
            "Moves are collected this long before one refresh is sent (a lifecycle cycle's changes land in one window).",
          ),
        cycleHoldMs: ms
          .max(5_000)
          .default(2_000)
          .describe(
            "While a lifecycle poll cycle runs, the refresh of what it moves is held (decision 0025): what its guards moved rides in the cycle's enrichment query, what the enrichment moved leaves in one round when the cycle ends; never held longer than this (nor past half of staleWhileRevalidateMs), agents being served the stale answer meanwhile. 0 turns holding off (each move waits windowMs).",
          ),
        batchWindowMs: ms
          .max(5_000)
          .default(50)
          .describe("How long a refresh's GraphQL queries wait for each other to merge into one query."),
        recentReadMs: ms
          .min(1_000)
          .default(120_000)
          .describe(
            "Only answers an agent read this recently are refreshed (the registry forgets older reads).",
          ),
        maxAnswers: z
          .number()
          .int()
          .min(1)
          .max(5_000)
          .default(300)
          .describe("Most answers fetched again in one refresh, the most recently read first."),
        maxPerTag: z
          .number()
          .int()
          .min(1)
          .max(100_000)
          .default(500)
          .describe(
            "Most recent reads the refresh registry keeps under one tag (the newest win); bounds its Redis memory.",
          ),
      })
      .prefault({}),
    maxBytes: z
      .number()
      .int()
      .min(1024 * 1024)
      .default(256 * 1024 * 1024)
      .describe("Memory bound of the cache in Redis; least recently used entries are evicted beyond it."),
    maxEntryBytes: z
      .number()
      .int()
      .min(1024)
      .default(8 * 1024 * 1024)
      .describe("Answers larger than this are not cached."),
    localBytes: z
      .number()
      .int()
      .min(0)
      .default(64 * 1024 * 1024)
      .describe(
        "Fresh answers also kept in this broker's memory (no Redis round trip on a hit); 0 disables. Invalidations reach it through Redis pub/sub.",
      ),
    retainSeconds: z
      .number()
      .int()
      .min(60)
      .default(3600)
      .describe("How long entries stay (for revalidation and stale serving) after they stop being fresh."),
    analyzerMaxDocuments: z
      .number()
      .int()
      .min(1)
      .default(1000)
      .describe("Parsed GraphQL documents kept for reuse (least recently used go first)."),
    analyzerMaxAnalyses: z
      .number()
      .int()
      .min(1)
      .default(5000)
      .describe("GraphQL analyses (cache keys, tags, cost per document and variables) kept for reuse."),
  })
  .prefault({});

/** Every `cacheSettings` default, as the schema resolves an absent section. */
export const CACHE_DEFAULTS = Object.freeze(cacheSettings.parse(undefined));
