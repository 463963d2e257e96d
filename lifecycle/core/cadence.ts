/**
 * How often each PR is looked at, and how far the budget lets the lifecycle go.
 *
 * Cadence: a PR whose CI is running is checked every `activeIntervalMs` (its checks will change
 * soon), one that changed recently every `quietIntervalMs`, one quiet for `idleAfterMs` every
 * `idleIntervalMs`. Closed and merged PRs get no per-PR guard: the repository's PR-list guard sees
 * a reopen, since reopening bumps the PR's updated_at.
 *
 * Budget: the lifecycle spends GraphQL points only on refreshes; when its recent spend rate would
 * run the bucket below the reserve before the window resets, every interval is stretched by the
 * ratio (up to `maxStretch`), and a cycle never spends more than the points above the reserve.
 * REST guards are mostly free 304s, but they still count against GitHub's secondary limits, so
 * their number per cycle is capped too.
 */
import type { CiStatus } from "./pr-enrichment.js";

export interface CadenceOptions {
  /** @defaultValue 10_000 */
  readonly activeIntervalMs: number;
  /** @defaultValue 60_000 */
  readonly quietIntervalMs: number;
  /** @defaultValue 120_000 */
  readonly idleIntervalMs: number;
  /** @defaultValue 600_000 */
  readonly idleAfterMs: number;
}

export interface CadenceSubject {
  readonly ciStatus: CiStatus | null;
  /** Local epoch ms of the PR's last observed change. */
  readonly lastChangeAt: number | null;
}

export function prPollInterval(subject: CadenceSubject, now: number, options: CadenceOptions): number {
  if (subject.ciStatus === "pending" || subject.ciStatus === null) return options.activeIntervalMs;
  if (subject.lastChangeAt !== null && now - subject.lastChangeAt < options.idleAfterMs) {
    return options.quietIntervalMs;
  }
  return options.idleIntervalMs;
}

export interface BudgetSnapshot {
  /** Points left in the current GraphQL window. */
  readonly remaining: number;
  /** Epoch ms at which the window resets; null when unknown. */
  readonly resetAt: number | null;
}

export interface BudgetPolicyInput {
  readonly budget: BudgetSnapshot | undefined;
  readonly now: number;
  /** The lifecycle's recent GraphQL spend, points per hour. */
  readonly spendPerHour: number;
  /** Points the lifecycle leaves for everyone else. */
  readonly reservePoints: number;
  /** Largest factor intervals are stretched by. */
  readonly maxStretch: number;
}

export interface BudgetDecision {
  /** Multiplier for every poll interval (≥ 1). */
  readonly stretch: number;
  /** Points this cycle may spend on refreshes; Infinity when the budget is unknown. */
  readonly pointsAllowed: number;
}

export function budgetDecision(input: BudgetPolicyInput): BudgetDecision {
  const { budget } = input;
  if (!budget) return { stretch: 1, pointsAllowed: Number.POSITIVE_INFINITY };
  const spendable = budget.remaining - input.reservePoints;
  if (spendable <= 0) return { stretch: input.maxStretch, pointsAllowed: 0 };
  const msToReset = budget.resetAt === null ? 3_600_000 : Math.max(60_000, budget.resetAt - input.now);
  const allowancePerHour = (spendable * 3_600_000) / msToReset;
  const stretch =
    input.spendPerHour <= allowancePerHour
      ? 1
      : Math.min(input.maxStretch, input.spendPerHour / allowancePerHour);
  return { stretch, pointsAllowed: spendable };
}

/** REST guard requests a cycle may make under a per-minute cap. */
export function restAllowedPerCycle(maxRestPerMinute: number, cycleIntervalMs: number): number {
  return Math.max(1, Math.ceil((maxRestPerMinute * cycleIntervalMs) / 60_000));
}
