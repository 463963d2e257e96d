/**
 * Pacing: a window is spent no faster than GitHub refills it, plus a burst. Without it a session
 * in an uncached loop that starts first spends the whole window before anyone else has asked
 * (issue 17: 353 of 360 requests in 8 s), and fair shares computed afterwards share nothing.
 *
 *   burst        = max(⌈limit × burstFraction⌉, burstMin)   (≥ limit: no pacing)
 *   allowance(t) = min(limit, burst + limit × (t − start) / windowMs)
 *   paced        = allowance(now) − (limit − remaining) − reserved
 *   keep         = what a heavy session must leave in the paced bucket for light ones
 *   admit iff paced − keep ≥ cost              else refuse "pace" until allowance catches up
 *
 * A session is heavy when it takes surplus (beyond its fair share), or when it has already spent
 * `keep` in this window: so a greedy first-comer, even alone, leaves `keep` for whoever arrives
 * next, and a newcomer's first commands are answered at once. Windows no larger than `burstMin`
 * (search's 30 a minute, tests' tiny buckets) are not paced. Spend by other clients of the same
 * token counts (GitHub's `remaining` says so), and so do in-flight reservations.
 *
 * broker/redis/lua/_budget.lua (paceCheck) mirrors this; the conformance test compares them.
 */
import type { BudgetWindow } from "./window.js";

export interface PacePolicy {
  /** Allowance at the start of a window, as a fraction of the limit; ≥ 1 turns pacing off. */
  readonly burstFraction: number;
  /** Smallest burst, in points or requests: windows this small are not paced. */
  readonly burstMin: number;
  /** Paced budget a heavy session must leave for light ones, as a fraction of the limit. */
  readonly keepFraction: number;
}

export interface PaceInput {
  readonly window: BudgetWindow;
  readonly reserved: number;
  readonly now: number;
  readonly cost: number;
  /** Σ spend of the requester (its group, when it has one) in this window, in flight included. */
  readonly used: number;
  /** The requester would be admitted beyond its fair share. */
  readonly surplus: boolean;
  readonly policy: PacePolicy;
}

export interface PaceDecision {
  readonly admitted: boolean;
  /** Paced budget before this request (may be negative after GitHub reported spend elsewhere). */
  readonly paced: number;
  readonly keep: number;
  /** Epoch ms at which the allowance covers this request (the reset when not in this window). */
  readonly retryAt: number;
  /**
   * The same, counting no in-flight reservation: no release can make the request pass earlier,
   * so a caller whose deadline comes first can be told at once.
   */
  readonly earliestAt: number;
}

export function paceBurst(limit: number, policy: PacePolicy): number {
  return Math.max(Math.ceil(limit * policy.burstFraction), policy.burstMin);
}

export function isPaced(limit: number, policy: PacePolicy): boolean {
  return paceBurst(limit, policy) < limit;
}

export function paceKeep(limit: number, policy: PacePolicy): number {
  return policy.keepFraction > 0 ? Math.max(1, Math.ceil(limit * policy.keepFraction)) : 0;
}

/** Budget GitHub's window lets the broker have spent by `now`. */
export function paceAllowance(window: BudgetWindow, now: number, policy: PacePolicy): number {
  const burst = paceBurst(window.limit, policy);
  if (burst >= window.limit) return window.limit;
  const length = Math.max(1, window.resetAt - window.startAt);
  const elapsed = Math.min(length, Math.max(0, now - window.startAt));
  return Math.min(window.limit, burst + (window.limit * elapsed) / length);
}

/** Epoch ms at which the allowance reaches `target` (the reset when this window never does). */
export function paceTimeFor(window: BudgetWindow, target: number, now: number, policy: PacePolicy): number {
  const burst = paceBurst(window.limit, policy);
  if (target <= burst) return now;
  if (target > window.limit) return window.resetAt;
  const length = Math.max(1, window.resetAt - window.startAt);
  const at = window.startAt + Math.ceil(((target - burst) * length) / window.limit);
  return Math.max(now, at);
}

export function decidePace(input: PaceInput): PaceDecision {
  const { window, policy, now, cost } = input;
  if (!isPaced(window.limit, policy))
    return { admitted: true, paced: Number.POSITIVE_INFINITY, keep: 0, retryAt: now, earliestAt: now };
  const spent = window.limit - window.remaining;
  const paced = paceAllowance(window, now, policy) - spent - input.reserved;
  const keepAll = paceKeep(window.limit, policy);
  const keep = input.surplus || input.used >= keepAll ? keepAll : 0;
  const admitted = paced - keep >= cost;
  if (admitted) return { admitted, paced, keep, retryAt: now, earliestAt: now };
  return {
    admitted,
    paced,
    keep,
    retryAt: paceTimeFor(window, spent + input.reserved + keep + cost, now, policy),
    earliestAt: paceTimeFor(window, spent + keep + cost, now, policy),
  };
}
