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

export interface PressureInput {
  /** Spent in this window so far. */
  readonly used: number;
  /** Left in this window. */
  readonly remaining: number;
  /** Epoch ms of the window's reset. */
  readonly resetAt: number;
  /** The window's length (an hour for GitHub's primary limits). */
  readonly windowMs: number;
  readonly now: number;
  /**
   * The pace is measured over at least this long, so a burst at the start of a window does not
   * read as a budget running out. @defaultValue 1000
   */
  readonly minPaceMs?: number;
}

/**
 * Spend pressure: what the current pace would spend between now and the reset, over what is left
 * (1: the budget runs out exactly at the reset; above 1: before it). The pace is the window's so
 * far (used over the time since the window began). 0 before anything is spent; Infinity when
 * nothing is left and something is being spent.
 */
export function spendPressure(input: PressureInput): number {
  const timeLeft = Math.max(0, input.resetAt - input.now);
  const elapsed = Math.max(input.windowMs - timeLeft, input.minPaceMs ?? MIN_ELAPSED_MS);
  const projected = (Math.max(0, input.used) / elapsed) * timeLeft;
  if (projected <= 0) return 0;
  if (input.remaining <= 0) return Number.POSITIVE_INFINITY;
  return projected / input.remaining;
}
