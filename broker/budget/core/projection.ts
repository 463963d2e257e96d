/**
 * Where the window is heading: the spend rate so far, projected to the reset. `ao-broker budget`
 * shows it so an operator sees "at this pace the budget runs out at 14:42" before it happens.
 */
import type { BudgetWindow } from "./window.js";

export interface SpendProjection {
  /** Spent in this window so far (GitHub's limit − remaining). */
  readonly used: number;
  /** Spend per hour at the current pace. */
  readonly ratePerHour: number;
  /** used + rate × time left; above `limit` means the budget runs out before the reset. */
  readonly projectedAtReset: number;
  /** Epoch ms when `remaining` reaches zero at this pace, when that is before the reset. */
  readonly exhaustsAt: number | undefined;
}

/** Rates are measured over at least this long, so the first request of a window is not a flood. */
const MIN_ELAPSED_MS = 1_000;

export function projectSpend(window: BudgetWindow, now: number): SpendProjection {
  const used = Math.max(0, window.limit - window.remaining);
  const elapsed = Math.max(now - window.startAt, MIN_ELAPSED_MS);
  const rate = used / elapsed;
  const timeLeft = Math.max(0, window.resetAt - now);
  const projectedAtReset = used + rate * timeLeft;
  const exhaustsAt =
    rate > 0 && projectedAtReset > window.limit ? now + Math.max(0, window.remaining) / rate : undefined;
  return { used, ratePerHour: rate * 3_600_000, projectedAtReset, exhaustsAt };
}
