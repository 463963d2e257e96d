import { describe, expect, it } from "vitest";
import { projectSpend } from "../../../../broker/budget/core/projection.js";

const T = 1_700_000_000_000;
const window = (remaining: number, elapsedMs: number, leftMs: number) => ({
  limit: 5000,
  remaining,
  startAt: T - elapsedMs,
  resetAt: T + leftMs,
  estimated: false,
});

describe("projectSpend", () => {
  it("projects the pace so far to the reset", () => {
    const p = projectSpend(window(4000, 1_800_000, 1_800_000), T);
    expect(p.used).toBe(1000);
    expect(p.ratePerHour).toBeCloseTo(2000);
    expect(p.projectedAtReset).toBeCloseTo(2000);
    expect(p.exhaustsAt).toBeUndefined();
  });

  it("says when the budget runs out before the reset", () => {
    const p = projectSpend(window(1000, 1_800_000, 1_800_000), T);
    expect(p.projectedAtReset).toBeCloseTo(8000);
    // 4000 per 30 min → the last 1000 last 7.5 min
    expect(p.exhaustsAt).toBe(T + 450_000);
  });

  it("does not explode on the first request of a window", () => {
    const p = projectSpend(window(4999, 0, 3_600_000), T);
    expect(p.ratePerHour).toBe(3600);
    expect(Number.isFinite(p.projectedAtReset)).toBe(true);
  });
});
