/**
 * A batching window that grows when the budget is tight (issue 16, item 3): more queries share
 * one merged request, and a merged request costs about one point however many members it has.
 * From the budget's spend pressure (broker/budget/core/projection.ts spendPressure: the current
 * pace's spend until the reset over what is left) the window stays at its class's normal value up
 * to `growFrom`, grows linearly to `maxWindowMs` at `fullAt`, and stays there beyond; it never
 * shrinks below the normal value and never passes the staleness bound (an answer that waits
 * longer would reach its agent older than the product allows). Pure.
 */

/** The product's staleness bound: no grown window passes it (and no maxWindowMs may exceed it). */
export const STALENESS_BOUND_MS = 30_000;

export interface TightBudgetSettings {
  /** Pressure at which the window starts to grow. */
  readonly growFrom: number;
  /** Pressure at which it reaches maxWindowMs. */
  readonly fullAt: number;
  /** The longest window, ms. */
  readonly maxWindowMs: number;
  /** The pace behind the pressure is measured over at least this long (a window's first burst). */
  readonly minPaceMs: number;
}

export function tightBudgetWindowMs(
  normalMs: number,
  pressure: number,
  settings: TightBudgetSettings,
): number {
  const cap = Math.min(settings.maxWindowMs, STALENESS_BOUND_MS);
  if (!(pressure > settings.growFrom) || cap <= normalMs) return normalMs;
  const span = settings.fullAt - settings.growFrom;
  const share = span <= 0 ? 1 : Math.min(1, (pressure - settings.growFrom) / span);
  return Math.round(normalMs + (cap - normalMs) * share);
}
