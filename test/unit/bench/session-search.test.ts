import { describe, expect, it } from "vitest";
import {
  DEFAULT_SEARCH,
  nextSessions,
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
  it("aims at the boundary the usage points to: the direct arm's 5 → 2 → 3, not 5 → 1 → 2 → 3", () => {
    // Direct at 5 sessions spends ~9,600 points/h (usage 1.93); the boundary is between 2 and 3.
    const tried = usageSearch(2.6);
    expect(tried).toEqual([5, 2, 3]);
  });

  it("after the first failure, narrows the bracket where the usage crosses 100 %", () => {
    const tried = usageSearch(63);
    const found = Math.max(...tried.filter((n) => n <= 63));
    expect(found).toBeGreaterThanOrEqual(63 / 1.1);
    // The old search (×4, then geometric means) needed 5, 20, 80, 40, 57, 68, 62 for this.
    expect(tried.length).toBeLessThanOrEqual(5);
  });

  it("never grows more than ×growth, nor past the ceiling while below it", () => {
    const points: SearchPoint[] = [{ sessions: 5, pass: true, usage: 0.01 }];
    expect(nextSessions(points)).toBe(20);
    expect(nextSessions(points, { ...DEFAULT_SEARCH, ceiling: 12 })).toBe(12);
    expect(
      nextSessions([{ sessions: 12, pass: true, usage: 0.01 }], { ...DEFAULT_SEARCH, ceiling: 12 }),
    ).toBe(48);
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
