/**
 * The upstream queue's policy numbers. GitHub's secondary limits are hard walls with unpublished
 * details, so the defaults stay 10 % below them; every number is configurable. docs/upstream.md
 * explains each.
 */
import { AoError, CommonErrors } from "../../common/index.js";
import type { AgingBounds } from "./core/priority.js";

export interface KeepJobs {
  readonly count: number;
  /** Seconds. */
  readonly age: number;
}

export interface UpstreamPolicy {
  /** Requests in flight to GitHub across ALL brokers (GitHub allows 100); one slot is the write lane's. @defaultValue 50 */
  readonly concurrency: number;
  /** Read-lane job starts per second across all brokers (a backstop; pacing below is the real limit). @defaultValue 100 */
  readonly maxStartsPerSecond: number;
  /** Attempts for idempotent requests (5xx, timeouts, connection errors). @defaultValue 4 */
  readonly readAttempts: number;
  /** Attempts for writes; only failures known to have sent nothing are retried. @defaultValue 3 */
  readonly writeAttempts: number;
  /** @defaultValue 250 */
  readonly backoffBaseMs: number;
  /** @defaultValue 8000 */
  readonly backoffMaxMs: number;
  /** Global pause after a secondary limit that names no retry-after (GitHub: "at least one minute"). @defaultValue 60000 */
  readonly secondaryPauseMs: number;
  /** Extra wait after a primary bucket's reset before trying it again. @defaultValue 1000 */
  readonly resetMarginMs: number;
  /** GraphQL secondary points per minute (GitHub: 2,000). @defaultValue 1800 */
  readonly graphqlPointsPerMinute: number;
  /** REST secondary points per minute per endpoint (GitHub: 900). @defaultValue 810 */
  readonly restPointsPerMinute: number;
  /** Content-creating requests per minute (GitHub: 80). @defaultValue 72 */
  readonly contentCreationPerMinute: number;
  /** Content-creating requests per hour (GitHub: 500). @defaultValue 450 */
  readonly contentCreationPerHour: number;
  /**
   * Length of the secondary limits' minute (the hour is 60 of them), ms; a multiple of 60. Change
   * only for a simulator with compressed time (its `secondaryMinuteMs` must match). @defaultValue 60000
   */
  readonly secondaryMinuteMs: number;
  /** Minimum gap between mutation starts (GitHub: "at least one second"). @defaultValue 1000 */
  readonly mutationSpacingMs: number;
  /** Per class: a job waiting longer is promoted to the top priority. @defaultValue { interactive: 10000, write: 10000, background: 30000 } */
  readonly agingMs: AgingBounds;
  /** How often one broker looks for jobs to promote. @defaultValue 500 */
  readonly agingTickMs: number;
  /**
   * BullMQ job lock (renewed every half of it); a broker that stops renewing it for this long is
   * considered dead. It bounds how long a crashed broker's running write holds the write lane's
   * single slot, i.e. how long every broker's writes wait after a crash. Jobs are network waits,
   * not CPU work, so a live broker renews in time. @defaultValue 8000
   */
  readonly lockDurationMs: number;
  /** How often workers look for jobs whose broker died. @defaultValue 2000 */
  readonly stalledIntervalMs: number;
  /** A result waits this long for its submitter before Redis drops it. @defaultValue 120000 */
  readonly resultTtlMs: number;
  /** After its deadline, a submitter waits this long for a job that is already running. @defaultValue 1000 */
  readonly deadlineGraceMs: number;
  /** Finished jobs kept for inspection. @defaultValue { count: 200, age: 60 } */
  readonly keepCompleted: KeepJobs;
  /** @defaultValue { count: 200, age: 3600 } */
  readonly keepFailed: KeepJobs;
  /** Alias of the rateLimit object injected into forwarded GraphQL queries. @defaultValue "aobRateLimit" */
  readonly graphqlRateLimitAlias: string;
  /** close() waits this long for this broker's submitted jobs before rejecting them. @defaultValue 30000 */
  readonly drainTimeoutMs: number;
  /** How often a broker checks its unanswered jobs for a missed reply or a job Redis lost. @defaultValue 2000 */
  readonly replySweepMs: number;
}

export type UpstreamPolicyInput = { readonly [K in keyof UpstreamPolicy]?: UpstreamPolicy[K] };

export const DEFAULT_UPSTREAM_POLICY: UpstreamPolicy = Object.freeze({
  concurrency: 50,
  maxStartsPerSecond: 100,
  readAttempts: 4,
  writeAttempts: 3,
  backoffBaseMs: 250,
  backoffMaxMs: 8_000,
  secondaryPauseMs: 60_000,
  resetMarginMs: 1_000,
  graphqlPointsPerMinute: 1_800,
  restPointsPerMinute: 810,
  contentCreationPerMinute: 72,
  contentCreationPerHour: 450,
  secondaryMinuteMs: 60_000,
  mutationSpacingMs: 1_000,
  agingMs: Object.freeze({ interactive: 10_000, write: 10_000, background: 30_000 }),
  agingTickMs: 500,
  lockDurationMs: 8_000,
  stalledIntervalMs: 2_000,
  resultTtlMs: 120_000,
  deadlineGraceMs: 1_000,
  keepCompleted: Object.freeze({ count: 200, age: 60 }),
  keepFailed: Object.freeze({ count: 200, age: 3_600 }),
  graphqlRateLimitAlias: "aobRateLimit",
  drainTimeoutMs: 30_000,
  replySweepMs: 2_000,
});

export function resolveUpstreamPolicy(input: UpstreamPolicyInput = {}): UpstreamPolicy {
  const defined = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  const policy: UpstreamPolicy = { ...DEFAULT_UPSTREAM_POLICY, ...defined };
  const bad = (key: string, expected: string): never => {
    throw new AoError(CommonErrors.AO_ERR_CONFIG_INVALID, `upstream.${key}: expected ${expected}`);
  };
  if (!(Number.isInteger(policy.concurrency) && policy.concurrency >= 2 && policy.concurrency <= 99)) {
    bad("concurrency", "an integer from 2 to 99 (GitHub allows 100 concurrent requests)");
  }
  const positive = [
    "maxStartsPerSecond",
    "readAttempts",
    "writeAttempts",
    "backoffBaseMs",
    "backoffMaxMs",
    "graphqlPointsPerMinute",
    "restPointsPerMinute",
    "contentCreationPerMinute",
    "contentCreationPerHour",
    "mutationSpacingMs",
    "agingTickMs",
    "lockDurationMs",
    "stalledIntervalMs",
    "resultTtlMs",
    "drainTimeoutMs",
    "replySweepMs",
  ] as const;
  for (const key of positive)
    if (!(Number.isFinite(policy[key]) && policy[key] > 0)) bad(key, "a positive number");
  for (const key of ["secondaryPauseMs", "resetMarginMs", "deadlineGraceMs"] as const) {
    if (!(Number.isFinite(policy[key]) && policy[key] >= 0)) bad(key, "a number ≥ 0");
  }
  if (
    !(
      Number.isInteger(policy.secondaryMinuteMs) &&
      policy.secondaryMinuteMs >= 600 &&
      policy.secondaryMinuteMs % 60 === 0
    )
  )
    bad("secondaryMinuteMs", "an integer ≥ 600 that is a multiple of 60");
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(policy.graphqlRateLimitAlias))
    bad("graphqlRateLimitAlias", "a GraphQL name");
  return Object.freeze(policy);
}
