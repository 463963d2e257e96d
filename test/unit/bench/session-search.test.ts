import { describe, expect, it } from "vitest";
import {
  boldSessions,
  DEFAULT_SEARCH,
  nextSessions,
  predictedBoundary,
  type SearchPoint,
  sessionsToBudget,
} from "../../../bench/core/session-search.js";

/** Runs the search against a monotone oracle: pass iff sessions ≤ threshold. */
function search(threshold: number, options = DEFAULT_SEARCH): { tried: number[]; found: number } {
  const points: SearchPoint[] = [];
  for (let next = nextSessions(points, options); next !== undefined; next = nextSessions(points, options)) {
    points.push({ sessions: next, pass: next <= threshold });
  }
  return { tried: points.map((p) => p.sessions), found: sessionsToBudget(points) };
}

describe("nextSessions", () => {
  it("grows from the start, then bisects to within the tolerance", () => {
    const { tried, found } = search(137, { ...DEFAULT_SEARCH, relativeTolerance: 0.1, maxSteps: 20 });
    expect(tried.slice(0, 4)).toEqual([5, 20, 80, 320]);
    expect(found).toBeLessThanOrEqual(137);
    expect(found).toBeGreaterThanOrEqual(137 / 1.1);
  });

  it("shrinks when the start already fails (the direct arm at 5 active sessions)", () => {
    const { tried, found } = search(2, { ...DEFAULT_SEARCH, relativeTolerance: 0.25 });
    expect(tried[0]).toBe(5);
    expect(tried[1]).toBe(1);
    expect(found).toBe(2);
    expect(tried).toContain(3);
  });

  it("stops at the ceiling when everything passes", () => {
    const { tried, found } = search(10_000, { ...DEFAULT_SEARCH, max: 300 });
    expect(tried).toEqual([5, 20, 80, 300]);
    expect(found).toBe(300);
  });

  it("reports 0 when even one session fails", () => {
    expect(search(0).found).toBe(0);
    expect(search(0).tried).toEqual([5, 1]);
  });

  it("never exceeds maxSteps and never repeats a count", () => {
    const { tried } = search(517, { ...DEFAULT_SEARCH, maxSteps: 6, relativeTolerance: 0.001 });
    expect(tried.length).toBeLessThanOrEqual(6);
    expect(new Set(tried).size).toBe(tried.length);
  });
});

describe("sessionsToBudget", () => {
  it("ignores a pass above the smallest failure (noise does not inflate the answer)", () => {
    expect(
      sessionsToBudget([
        { sessions: 10, pass: true },
        { sessions: 20, pass: false },
        { sessions: 30, pass: true },
      ]),
    ).toBe(10);
  });
});

/** A monotone world where usage is linear in sessions and only the budget fails a step. */
function usageSearch(boundary: number, options = DEFAULT_SEARCH): number[] {
  const points: SearchPoint[] = [];
  for (let next = nextSessions(points, options); next !== undefined; next = nextSessions(points, options)) {
    const usage = next / boundary;
    points.push({ sessions: next, pass: usage <= 1, usage, budgetOnly: usage > 1 });
  }
  return points.map((p) => p.sessions);
}

describe("nextSessions with the budget's usage", () => {
  it("aims at the boundary the usage points to: the direct arm's 5 → 3 → 2, not 5 → 1 → 2 → 3", () => {
    // Direct at 5 sessions spends ~9,600 points/h (usage 1.93); the boundary is between 2 and 3:
    // the count nearest 5 ÷ 1.93 first, then the one below.
    expect(usageSearch(2.6)).toEqual([5, 3, 2]);
    // Nearer 2: 2 first, then 3 closes the bracket.
    expect(usageSearch(2.2)).toEqual([5, 2, 3]);
  });

  it("after the first failure, narrows the bracket where the usage crosses 100 %", () => {
    const tried = usageSearch(63);
    const found = Math.max(...tried.filter((n) => n <= 63));
    expect(found).toBeGreaterThanOrEqual(63 / 1.1);
    // The old search (×4, then geometric means) needed 5, 20, 80, 40, 57, 68, 62 for this.
    expect(tried.length).toBeLessThanOrEqual(5);
  });

  it("aims at the boundary the usage predicts, lowered 5 %, not a growth factor; ×growth only without a usage; never past the ceiling while below it", () => {
    const points: SearchPoint[] = [{ sessions: 5, pass: true, usage: 0.078 }];
    // 5 ÷ 0.078 = 64, × 0.95.
    expect(nextSessions(points)).toBe(60);
    expect(nextSessions([{ sessions: 5, pass: true }])).toBe(20);
    expect(nextSessions(points, { ...DEFAULT_SEARCH, ceiling: 12 })).toBe(12);
    expect(
      nextSessions([{ sessions: 12, pass: true, usage: 0.01 }], { ...DEFAULT_SEARCH, ceiling: 12 }),
    ).toBe(1000);
  });

  it("predicts from the two largest passes where usage is concave, and goes to the tolerance's edge once the prediction is within it", () => {
    // The broker's full-run steps of 1de3df9: 5 → 0.078, 80 → 0.649 (40.6 points per session-hour).
    const two: SearchPoint[] = [
      { sessions: 5, pass: true, usage: 0.078 },
      { sessions: 80, pass: true, usage: 0.649 },
    ];
    // Origin: 80 ÷ 0.649 = 123; the line through both passes: 80 + 0.351 ÷ 0.00761 = 126.
    expect(predictedBoundary(two)).toBeCloseTo(126.1, 0);
    expect(nextSessions(two)).toBe(119);
    const near: SearchPoint[] = [...two, { sessions: 120, pass: true, usage: 0.97 }];
    // Predicted ~123: within 10 % of 120, so 132, where a failure closes the bracket.
    expect(nextSessions(near)).toBe(132);
    // A flat pair (noise) predicts at most ×1.5 the origin's.
    const flat: SearchPoint[] = [
      { sessions: 40, pass: true, usage: 0.49 },
      { sessions: 50, pass: true, usage: 0.5 },
    ];
    expect(predictedBoundary(flat)).toBeCloseTo(150, 5);
  });

  it("offers a bold count past the prediction only while nothing failed", () => {
    const points: SearchPoint[] = [{ sessions: 5, pass: true, usage: 0.078 }];
    // Predicted 64, × (1 + (2 − 1) × (1 − 0.078)).
    expect(boldSessions(points, DEFAULT_SEARCH)).toBe(123);
    // Nearer 100 %, nearer the prediction: 80 ÷ 0.9 = 89, × 1.1.
    expect(boldSessions([{ sessions: 80, pass: true, usage: 0.9 }], DEFAULT_SEARCH)).toBe(98);
    expect(
      boldSessions([...points, { sessions: 80, pass: false, usage: 1.1 }], DEFAULT_SEARCH),
    ).toBeUndefined();
    expect(boldSessions([{ sessions: 5, pass: true }], DEFAULT_SEARCH)).toBeUndefined();
  });

  it("falls back to the geometric mean when the failure was not the budget's", () => {
    const points: SearchPoint[] = [
      { sessions: 20, pass: true, usage: 0.3 },
      { sessions: 80, pass: false, usage: 0.9, budgetOnly: false },
    ];
    expect(nextSessions(points)).toBe(40);
  });

  it("keeps a bad estimate inside the gap, so every step narrows it", () => {
    const points: SearchPoint[] = [
      { sessions: 20, pass: true, usage: 0.99 },
      { sessions: 80, pass: false, usage: 5, budgetOnly: true },
    ];
    // The crossing is at 20.1; the guard keeps it at least a fifth of the gap above the pass.
    expect(nextSessions(points)).toBe(32);
  });
});
