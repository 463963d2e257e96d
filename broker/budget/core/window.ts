/**
 * The global budget window of one resource, as GitHub reports it. GitHub's numbers are the
 * truth: every answer's x-ratelimit-* headers (and the `rateLimit` object injected into forwarded
 * GraphQL) are merged in here. Between answers the broker keeps its own estimate.
 *
 * Merge rules (mirrored line for line by broker/redis/lua/_budget.lua; a conformance test runs
 * both on the same states):
 * - Same window (resets within RESET_TOLERANCE_MS, as GitHub's reset is whole seconds): answers
 *   arrive out of order, but within a window `remaining` only falls, so keep the minimum.
 * - A later reset is a new window: adopt it, and per-session spend starts again from zero —
 *   unless our window was only an estimate (never observed, or guessed after a roll), in which
 *   case the spend recorded meanwhile already belongs to the new window.
 * - An earlier reset is a late answer from the previous window and is ignored — unless our
 *   window is an estimate and GitHub's reset is still in the future (we rolled too early).
 * - When the clock passes reset + margin with no news, GitHub has refilled the bucket: assume
 *   `remaining = limit` and guess the next reset until an answer says otherwise.
 */

/** GitHub's x-ratelimit-reset is in whole seconds. */
export const RESET_TOLERANCE_MS = 1_000;

export interface BudgetWindow {
  readonly limit: number;
  readonly remaining: number;
  /** Epoch ms at which the window resets. */
  readonly resetAt: number;
  /** Epoch ms at which the window began (for spend-rate projections). */
  readonly startAt: number;
  /** True while resetAt/remaining are our guess rather than GitHub's report. */
  readonly estimated: boolean;
}

export interface WindowPolicy {
  /** Length of GitHub's window for this resource (1 h for core and graphql, 1 min for search). */
  readonly windowMs: number;
  /** Limit assumed before GitHub has answered once. */
  readonly defaultLimit: number;
  /** How long after reset the broker assumes a refill without having seen one. */
  readonly resetMarginMs: number;
}

export interface Observation {
  readonly limit: number;
  readonly remaining: number;
  /** Epoch ms. */
  readonly resetAt: number;
}

export function freshWindow(now: number, policy: WindowPolicy): BudgetWindow {
  return {
    limit: policy.defaultLimit,
    remaining: policy.defaultLimit,
    resetAt: now + policy.windowMs,
    startAt: now,
    estimated: true,
  };
}

export interface RollResult {
  readonly window: BudgetWindow;
  /** True when per-session spend of the old window must be forgotten. */
  readonly rolled: boolean;
}

export function rollIfDue(window: BudgetWindow, now: number, policy: WindowPolicy): RollResult {
  if (now < window.resetAt + policy.resetMarginMs) return { window, rolled: false };
  return {
    window: {
      limit: window.limit,
      remaining: window.limit,
      resetAt: now + policy.windowMs,
      startAt: now,
      estimated: true,
    },
    rolled: true,
  };
}

export interface MergeResult {
  readonly window: BudgetWindow;
  /** True when per-session spend of the old window must be forgotten. */
  readonly newWindow: boolean;
  /** False when the observation was ignored as stale. */
  readonly adopted: boolean;
}

export function mergeObservation(
  stored: BudgetWindow | undefined,
  observed: Observation,
  now: number,
  policy: WindowPolicy,
): MergeResult {
  const adopt = (remaining: number): BudgetWindow => ({
    limit: observed.limit,
    remaining,
    resetAt: observed.resetAt,
    startAt: observed.resetAt - policy.windowMs,
    estimated: false,
  });
  // Before the first answer the window is the default guess, like a window after a roll.
  const current = stored ?? freshWindow(now, policy);
  const delta = observed.resetAt - current.resetAt;
  if (Math.abs(delta) <= RESET_TOLERANCE_MS) {
    const remaining = current.estimated
      ? observed.remaining
      : Math.min(current.remaining, observed.remaining);
    return { window: adopt(remaining), newWindow: false, adopted: true };
  }
  if (delta > 0) {
    return { window: adopt(observed.remaining), newWindow: !current.estimated, adopted: true };
  }
  if (current.estimated && observed.resetAt > now) {
    return { window: adopt(observed.remaining), newWindow: false, adopted: true };
  }
  return { window: current, newWindow: false, adopted: false };
}
