/**
 * Reading the secondary-limit windows that takePace-7.lua keeps (pure: the caller fetches the
 * hashes and the time). A window is a hash of buckets, bucket index → points; buckets of
 * minute/60 for a minute, of a minute for an hour. The current bucket and the 60 before it count,
 * the same rule the script applies, so a view never shows less than the script will count.
 */

/** What a paced job waits for, by takePace-7.lua's refusal code. */
export const PACE_LIMITS = {
  "1": "secondary-limit-pause",
  "2": "primary-budget",
  "3": "endpoint-points-per-minute",
  "4": "content-creation-per-minute",
  "5": "content-creation-per-hour",
} as const;

export type PaceLimit = (typeof PACE_LIMITS)[keyof typeof PACE_LIMITS];

/** Sum of the buckets still inside the window at `now`. */
export function windowSum(
  fields: Readonly<Record<string, string>>,
  now: number,
  bucketMs: number,
  buckets = 60,
): number {
  const oldest = Math.floor(now / bucketMs) - buckets;
  let sum = 0;
  for (const [index, value] of Object.entries(fields)) {
    if (Number(index) >= oldest) sum += Number(value) || 0;
  }
  return sum;
}

export interface PacedWait {
  readonly jobId: string;
  readonly sessionId: string;
  readonly limit: PaceLimit;
  /** The endpoint as the queue counts it (`graphql`, `/repos/:owner/:repo/issues/:n/comments`). */
  readonly endpoint: string;
  /** Epoch ms: when it may go. */
  readonly until: number;
  /** Epoch ms: when it was last refused. */
  readonly since: number;
}

/** One field of the waits hash ("code|session|endpoint|until|since"); undefined when malformed. */
export function parseWait(jobId: string, value: string): PacedWait | undefined {
  const parts = value.split("|");
  if (parts.length < 5) return undefined;
  // Session ids have no "|" (the budget gate refuses them); endpoints have none either.
  const [code, sessionId, endpoint, until, since] = parts as [string, string, string, string, string];
  const limit = PACE_LIMITS[code as keyof typeof PACE_LIMITS];
  if (!limit || !Number.isFinite(Number(until)) || !Number.isFinite(Number(since))) return undefined;
  return { jobId, sessionId, limit, endpoint, until: Number(until), since: Number(since) };
}

/** A wait is stale when its job neither went nor re-asked well after it was due (its broker died). */
export function isStaleWait(wait: PacedWait, now: number, graceMs: number): boolean {
  return wait.until + graceMs < now;
}
