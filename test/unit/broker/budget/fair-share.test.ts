import { describe, expect, it } from "vitest";
import { maxMinAllocation, weightedShares } from "../../../../broker/budget/core/fair-share.js";

function round(map: Map<string, number>): Record<string, number> {
  return Object.fromEntries([...map].map(([k, v]) => [k, Math.round(v * 100) / 100]));
}

describe("weightedShares", () => {
  it.each([
    {
      name: "equal weights split evenly",
      pool: 100,
      sessions: { a: 1, b: 1, c: 1, d: 1 },
      want: { a: 25, b: 25, c: 25, d: 25 },
    },
    { name: "weights 2:1 split two to one", pool: 90, sessions: { a: 2, b: 1 }, want: { a: 60, b: 30 } },
    { name: "one session takes the whole pool", pool: 17, sessions: { a: 3 }, want: { a: 17 } },
    { name: "an empty pool gives nothing", pool: 0, sessions: { a: 1, b: 1 }, want: { a: 0, b: 0 } },
  ])("$name", ({ pool, sessions, want }) => {
    const list = Object.entries(sessions).map(([id, weight]) => ({ id, weight }));
    expect(round(weightedShares(pool, list))).toEqual(want);
  });
});

describe("maxMinAllocation", () => {
  const inf = Number.POSITIVE_INFINITY;
  it.each([
    {
      name: "equal weights, everyone hungry: equal split",
      pool: 20,
      sessions: [
        ["a", 1, inf],
        ["b", 1, inf],
        ["c", 1, inf],
        ["d", 1, inf],
        ["e", 1, inf],
      ],
      want: { a: 4, b: 4, c: 4, d: 4, e: 4 },
    },
    {
      name: "weights 2:1, both hungry: two thirds and one third",
      pool: 300,
      sessions: [
        ["a", 2, inf],
        ["b", 1, inf],
      ],
      want: { a: 200, b: 100 },
    },
    {
      name: "one greedy vs four moderate: the moderates get all they ask, the greedy the rest",
      pool: 1000,
      sessions: [
        ["greedy", 1, inf],
        ["m1", 1, 50],
        ["m2", 1, 50],
        ["m3", 1, 120],
        ["m4", 1, 30],
      ],
      want: { greedy: 750, m1: 50, m2: 50, m3: 120, m4: 30 },
    },
    {
      name: "sessions under their share get all they ask and the pool is not exhausted",
      pool: 100,
      sessions: [
        ["a", 1, 10],
        ["b", 1, 20],
      ],
      want: { a: 10, b: 20 },
    },
    {
      name: "a moderate demand above the level is capped with the hungry",
      pool: 100,
      sessions: [
        ["a", 1, 10],
        ["b", 1, 60],
        ["c", 1, inf],
      ],
      want: { a: 10, b: 45, c: 45 },
    },
    {
      name: "weights apply after the small demands are served",
      pool: 100,
      sessions: [
        ["a", 1, 10],
        ["b", 2, inf],
        ["c", 1, inf],
      ],
      want: { a: 10, b: 60, c: 30 },
    },
  ])("$name", ({ pool, sessions, want }) => {
    const list = sessions.map(([id, weight, demand]) => ({
      id: id as string,
      weight: weight as number,
      demand: demand as number,
    }));
    const allocation = maxMinAllocation(pool, list);
    expect(round(allocation)).toEqual(want);
  });
});
