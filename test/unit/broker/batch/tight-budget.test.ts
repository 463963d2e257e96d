/**
 * The batching window grows when the budget is tight (issue 16 item 3): the spend pressure
 * (broker/budget/core/projection.ts) and the window it gives (broker/batch/core/tight-budget.ts).
 */
import { describe, expect, it } from "vitest";
import { BATCHING_DEFAULTS } from "../../../../broker/batch/batch-settings.js";
import { tightBudgetWindowMs } from "../../../../broker/batch/core/tight-budget.js";
import { spendPressure } from "../../../../broker/budget/core/projection.js";

const HOUR = 3_600_000;
const settings = { growFrom: 0.9, fullAt: 1.2, maxWindowMs: 5_000, minPaceMs: 300_000 };

describe("spendPressure", () => {
  it("is the current pace's spend until the reset over what is left", () => {
    // Half the hour gone, 2,000 spent: 2,000 more at this pace, 3,000 left.
    expect(
      spendPressure({ used: 2_000, remaining: 3_000, resetAt: HOUR, windowMs: HOUR, now: HOUR / 2 }),
    ).toBeCloseTo(2 / 3);
    // 4,000 spent in half the hour: 4,000 more, 1,000 left.
    expect(
      spendPressure({ used: 4_000, remaining: 1_000, resetAt: HOUR, windowMs: HOUR, now: HOUR / 2 }),
    ).toBeCloseTo(4);
  });

  it("measures the pace over at least minPaceMs: a window's first burst is not a budget running out", () => {
    const burst = { used: 200, remaining: 4_800, resetAt: HOUR - 10_000, windowMs: HOUR, now: 0 };
    expect(spendPressure(burst)).toBeGreaterThan(10);
    expect(spendPressure({ ...burst, minPaceMs: 300_000 })).toBeLessThan(0.9);
  });

  it("is 0 before anything is spent and Infinity when nothing is left and spending goes on", () => {
    expect(spendPressure({ used: 0, remaining: 5_000, resetAt: HOUR, windowMs: HOUR, now: 0 })).toBe(0);
    expect(spendPressure({ used: 5_000, remaining: 0, resetAt: HOUR, windowMs: HOUR, now: HOUR / 2 })).toBe(
      Number.POSITIVE_INFINITY,
    );
  });
});

describe("tightBudgetWindowMs", () => {
  it("keeps the class's normal window up to growFrom", () => {
    expect(tightBudgetWindowMs(600, 0, settings)).toBe(600);
    expect(tightBudgetWindowMs(600, 0.9, settings)).toBe(600);
  });

  it("grows linearly from growFrom to maxWindowMs at fullAt, and stays there beyond", () => {
    expect(tightBudgetWindowMs(600, 1.05, settings)).toBe(2_800);
    expect(tightBudgetWindowMs(600, 1.2, settings)).toBe(5_000);
    expect(tightBudgetWindowMs(600, 4, settings)).toBe(5_000);
    expect(tightBudgetWindowMs(600, Number.POSITIVE_INFINITY, settings)).toBe(5_000);
  });

  it("never passes the staleness bound, and never shrinks a window already longer than the cap", () => {
    expect(tightBudgetWindowMs(600, 2, { ...settings, maxWindowMs: 60_000 })).toBe(30_000);
    expect(tightBudgetWindowMs(8_000, 2, settings)).toBe(8_000);
  });

  it("ships growFrom 0.9, fullAt 1.2, maxWindowMs 5 s, bounded by 30 s", () => {
    expect(BATCHING_DEFAULTS.tightBudget).toEqual({
      enabled: true,
      growFrom: 0.9,
      fullAt: 1.2,
      maxWindowMs: 5_000,
      minPaceMs: 300_000,
    });
  });
});
