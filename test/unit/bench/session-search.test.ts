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
