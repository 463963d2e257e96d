/**
 * The lifecycle's options with their defaults. The broker validates its config file with zod at
 * the edge; this resolver still range-checks what it is given (a library can be called directly)
 * and names the offending field, then freezes the result.
 */
import { AoError, CommonErrors } from "../common/index.js";

export interface LifecycleConfig {
  /** How often the poll loop runs a cycle. @defaultValue 10_000 */
  readonly cycleIntervalMs: number;
  /** Per repository: the PR-list guard. @defaultValue 10_000 */
  readonly repoIntervalMs: number;
  /** Per PR with CI running: check-run / status guards. @defaultValue 10_000 */
  readonly activeIntervalMs: number;
  /** Per PR that changed within `idleAfterMs`. @defaultValue 60_000 */
  readonly quietIntervalMs: number;
  /** Per PR quiet for longer. @defaultValue 120_000 */
  readonly idleIntervalMs: number;
  /** @defaultValue 600_000 */
  readonly idleAfterMs: number;
  /**
   * Per repository: the Actions guard (`GET actions/runs`), which watches every workflow run and
   * job of the repository in one conditional read; 0 disables. It runs only when the broker's cache
   * listens for its vouches (ports.vouchActions). @defaultValue 10_000
   */
  readonly actionsIntervalMs: number;
  /** Runs on the Actions guard's page (the newest by creation; 1–100). @defaultValue 100 */
  readonly actionsPageSize: number;
  /**
   * Per PR whose head's check runs all come from Actions and whose runs the Actions guard watches:
   * the check-runs guard, as a slow backstop (commit statuses keep their own cadence). @defaultValue 120_000
   */
  readonly checksBackstopMs: number;
  /** Per open PR with a review: the review-comments guard (0 disables; new comments also bump the PR list). @defaultValue 300_000 */
  readonly commentsIntervalMs: number;
  /** Every open PR is re-read at least this often even when no guard moved; 0 disables. @defaultValue 1_800_000 */
  readonly backstopIntervalMs: number;
  /** PRs per enrichment query (25 → 1 point; up to 37 still 1 point; 50 → 2). @defaultValue 25 */
  readonly enrichmentBatchSize: number;
  /** Branches per detection query (up to 149 cost 1 point). @defaultValue 100 */
  readonly detectionBatchSize: number;
  /** Fill free slots of a batch with the PRs read longest ago (same cost). @defaultValue true */
  readonly fillBatches: boolean;
  /** Items per page of the repository PR-list guard. @defaultValue 20 */
  readonly repoPageSize: number;
  /** Pages read when a repository's list moved. @defaultValue 5 */
  readonly maxRepoPages: number;
  /** @defaultValue 50 */
  readonly checkContexts: number;
  /** @defaultValue 50 */
  readonly reviewThreads: number;
  /** @defaultValue 5 */
  readonly reviews: number;
  /** REST guards in flight at once. @defaultValue 32 */
  readonly restConcurrency: number;
  /** GraphQL queries in flight at once. @defaultValue 4 */
  readonly graphqlConcurrency: number;
  /** Cap on REST guard requests per minute (304s are free, but may still count for secondary limits). @defaultValue 600 */
  readonly maxRestPerMinute: number;
  /** GraphQL points the lifecycle leaves for everyone else. @defaultValue 500 */
  readonly reservePoints: number;
  /** REST core requests the lifecycle leaves for everyone else. @defaultValue 500 */
  readonly reserveRest: number;
  /** Largest factor the budget may stretch poll intervals by. @defaultValue 6 */
  readonly maxStretch: number;
  /** Idle time after which a session is `stuck`; 0 disables. @defaultValue 900_000 */
  readonly stuckThresholdMs: number;
  /** New watches' first reads are gathered this long, then sent as batches (webhooks: webhookGatherMs). @defaultValue 200 */
  readonly webhookDebounceMs: number;
  /**
   * Webhook deliveries are gathered this long (near, below the staleness bound) before the moves
   * they make and the lifecycle's re-reads they ask for: N deliveries about one PR make one move
   * and one refresh. A delivery reporting the broker's own write of the same facet this recently
   * moves nothing again. @defaultValue 5_000
   */
  readonly webhookGatherMs: number;
  /**
   * While webhooks keep arriving (one within `webhookLiveMs`), they are the primary signal and the
   * guards a slow backstop: every guard interval, and how long a guard's vouch lets an answer be
   * served, is multiplied by this (1 turns it off). @defaultValue 6
   */
  readonly webhookPollStretch: number;
  /** Webhooks count as arriving until this long after the last delivery; then polling returns to normal. @defaultValue 120_000 */
  readonly webhookLiveMs: number;
  /** Largest webhook body accepted. @defaultValue 26_214_400 */
  readonly webhookMaxBodyBytes: number;
  /** How long a webhook delivery id is remembered (GitHub redelivers). @defaultValue 86_400_000 */
  readonly webhookDedupeTtlMs: number;
  /** Delivery ids remembered in memory (without Redis). @defaultValue 10_000 */
  readonly webhookDedupeMaxEntries: number;
}

export const DEFAULT_LIFECYCLE_CONFIG: LifecycleConfig = Object.freeze({
  cycleIntervalMs: 10_000,
  repoIntervalMs: 10_000,
  activeIntervalMs: 10_000,
  quietIntervalMs: 60_000,
  idleIntervalMs: 120_000,
  idleAfterMs: 600_000,
  actionsIntervalMs: 10_000,
  actionsPageSize: 100,
  checksBackstopMs: 120_000,
  commentsIntervalMs: 300_000,
  backstopIntervalMs: 1_800_000,
  enrichmentBatchSize: 25,
  detectionBatchSize: 100,
  fillBatches: true,
  repoPageSize: 20,
  maxRepoPages: 5,
  checkContexts: 50,
  reviewThreads: 50,
  reviews: 5,
  restConcurrency: 32,
  graphqlConcurrency: 4,
  maxRestPerMinute: 600,
  reservePoints: 500,
  reserveRest: 500,
  maxStretch: 6,
  stuckThresholdMs: 900_000,
  webhookDebounceMs: 200,
  webhookGatherMs: 5_000,
  webhookPollStretch: 6,
  webhookLiveMs: 120_000,
  webhookMaxBodyBytes: 26_214_400,
  webhookDedupeTtlMs: 86_400_000,
  webhookDedupeMaxEntries: 10_000,
});

export const LIFECYCLE_RANGES: Readonly<Partial<Record<keyof LifecycleConfig, readonly [number, number]>>> = {
  cycleIntervalMs: [10, 3_600_000],
  repoIntervalMs: [0, 3_600_000],
  activeIntervalMs: [0, 3_600_000],
  quietIntervalMs: [0, 3_600_000],
  idleIntervalMs: [0, 86_400_000],
  idleAfterMs: [0, 86_400_000],
  actionsIntervalMs: [0, 3_600_000],
  actionsPageSize: [1, 100],
  checksBackstopMs: [0, 86_400_000],
  commentsIntervalMs: [0, 86_400_000],
  backstopIntervalMs: [0, 86_400_000],
  enrichmentBatchSize: [1, 50],
  detectionBatchSize: [1, 100],
  repoPageSize: [1, 100],
  maxRepoPages: [1, 50],
  checkContexts: [1, 100],
  reviewThreads: [1, 100],
  reviews: [1, 100],
  restConcurrency: [1, 100],
  graphqlConcurrency: [1, 20],
  maxRestPerMinute: [1, 100_000],
  reservePoints: [0, 1_000_000],
  reserveRest: [0, 1_000_000],
  maxStretch: [1, 100],
  stuckThresholdMs: [0, 604_800_000],
  webhookDebounceMs: [0, 60_000],
  webhookGatherMs: [0, 25_000],
  webhookPollStretch: [1, 100],
  webhookLiveMs: [1000, 3_600_000],
  webhookMaxBodyBytes: [1024, 26_214_400],
  webhookDedupeTtlMs: [60_000, 604_800_000],
  webhookDedupeMaxEntries: [1, 1_000_000],
};
const RANGES = LIFECYCLE_RANGES;

/** What each setting means, for docs/config.md (scripts/gen-config-docs.ts); one per setting. */
export const LIFECYCLE_SETTING_DESCRIPTIONS: Readonly<Record<keyof LifecycleConfig, string>> = {
  cycleIntervalMs: "How often the poll loop runs a cycle.",
  repoIntervalMs: "Per repository: how often the PR-list guard is read.",
  actionsIntervalMs:
    "Per repository: how often the Actions guard (a conditional actions/runs read) is read; 0 turns it off.",
  actionsPageSize: "Runs on the Actions guard's page (the most recently created first).",
  checksBackstopMs:
    "Per PR the Actions guard covers: how often its check-run guard is still read, as a backstop.",
  activeIntervalMs: "Per PR with CI running: how often its check-run and status guards are read.",
  quietIntervalMs: "Per PR that changed within idleAfterMs: how often its guards are read.",
  idleIntervalMs: "Per PR quiet for longer: how often its guards are read.",
  idleAfterMs: "A PR unchanged this long counts as idle.",
  commentsIntervalMs:
    "Per open PR with a review: the review-comments guard (0 disables; new comments also bump the PR list).",
  backstopIntervalMs: "Every open PR is re-read at least this often even when no guard moved; 0 disables.",
  enrichmentBatchSize: "PRs per enrichment query (25 → 1 point; up to 37 still 1 point; 50 → 2).",
  detectionBatchSize: "Branches per detection query (up to 149 cost 1 point).",
  fillBatches: "Fill free slots of a batch with the PRs read longest ago (same cost).",
  repoPageSize: "Items per page of the repository PR-list guard.",
  maxRepoPages: "Pages read when a repository's list moved.",
  checkContexts: "Check contexts read per PR in an enrichment query.",
  reviewThreads: "Review threads read per PR in an enrichment query.",
  reviews: "Reviews read per PR in an enrichment query.",
  restConcurrency: "REST guards in flight at once.",
  graphqlConcurrency: "GraphQL queries in flight at once.",
  maxRestPerMinute:
    "Cap on REST guard requests per minute (304s are free, but may still count for secondary limits).",
  reservePoints: "GraphQL points the lifecycle leaves for everyone else.",
  reserveRest: "REST core requests the lifecycle leaves for everyone else.",
  maxStretch: "Largest factor the budget may stretch poll intervals by.",
  stuckThresholdMs: "Idle time after which a session is `stuck`; 0 disables.",
  webhookDebounceMs:
    "New watches' first reads are gathered this long, then sent as batches (webhook deliveries are gathered by webhookGatherMs).",
  webhookGatherMs:
    "Webhook deliveries are gathered this long (keep it below the staleness bound) before their moves and the lifecycle's re-reads; a delivery reporting the broker's own write of this recently moves nothing again.",
  webhookPollStretch:
    "While webhooks keep arriving (one within webhookLiveMs) they are the primary signal: every guard interval, and how long a guard's vouch serves an answer, is multiplied by this; 1 turns it off.",
  webhookLiveMs:
    "Webhooks count as arriving until this long after the last delivery; after that polling returns to its normal cadence.",
  webhookMaxBodyBytes: "Largest webhook body accepted.",
  webhookDedupeTtlMs:
    "How long a webhook delivery id is remembered, so a redelivery is answered without acting twice.",
  webhookDedupeMaxEntries: "Delivery ids remembered in memory when there is no Redis.",
};

export function resolveLifecycleConfig(partial: Partial<LifecycleConfig> = {}): LifecycleConfig {
  const config: Record<string, unknown> = { ...DEFAULT_LIFECYCLE_CONFIG };
  for (const [key, value] of Object.entries(partial)) {
    if (value === undefined) continue;
    if (!(key in DEFAULT_LIFECYCLE_CONFIG)) {
      throw new AoError(CommonErrors.AO_ERR_CONFIG_INVALID, `lifecycle.${key}: unknown option`);
    }
    const range = RANGES[key as keyof LifecycleConfig];
    if (range) {
      if (typeof value !== "number" || !Number.isFinite(value) || value < range[0] || value > range[1]) {
        throw new AoError(
          CommonErrors.AO_ERR_CONFIG_INVALID,
          `lifecycle.${key}: expected a number from ${range[0]} to ${range[1]}, got ${JSON.stringify(value)}`,
        );
      }
    } else if (typeof value !== "boolean") {
      throw new AoError(CommonErrors.AO_ERR_CONFIG_INVALID, `lifecycle.${key}: expected true or false`);
    }
    config[key] = value;
  }
  return Object.freeze(config) as unknown as LifecycleConfig;
}
