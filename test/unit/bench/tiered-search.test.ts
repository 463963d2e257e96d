import { describe, expect, it } from "vitest";
import { DEFAULT_SEARCH } from "../../../bench/core/session-search.js";
import {
  nextTieredStep,
  type TieredCosts,
  type TieredOptions,
  type TieredPoint,
  tieredAnswer,
} from "../../../bench/core/tiered-search.js";

/** Wall seconds of the quick plan's steps on this machine's compression (≤ ×30, 200 requests/s). */
const scale = (n: number) => Math.min(30, 300 / n);
const COSTS: TieredCosts = {
  scout: (n) => (60 + Math.min(300, Math.max(120, 3000 / n))) / scale(n) + 3,
  confirm: (n) => (60 + 600) / scale(n) + 3,
};

const QUICK: TieredOptions = {
  search: { ...DEFAULT_SEARCH, relativeTolerance: 0.15, maxSteps: 7 },
  scouting: true,
  maxConfirmSteps: 4,
};

/**
 * A world where short windows overstate: a scouting step passes up to `scoutBoundary`, a step
 * judged like the full run's only up to `boundary` (usage linear in sessions in both).
 */
function run(boundary: number, scoutBoundary: number, budgetS: number, options = QUICK) {
  const points: TieredPoint[] = [];
  let spent = 0;
  for (;;) {
    const next = nextTieredStep(points, options, COSTS, budgetS - spent);
    if (!next.step) break;
    const { sessions, tier } = next.step;
    spent += tier === "scout" ? COSTS.scout(sessions) : COSTS.confirm(sessions);
    const usage = sessions / (tier === "scout" ? scoutBoundary : boundary);
    points.push({ sessions, tier, pass: usage <= 1, usage, budgetOnly: usage > 1 });
  }
  return { points, spent, answer: tieredAnswer(points, options) };
}

describe("nextTieredStep: a quick run's answer is a confirmed count", () => {
  it.each([
    { boundary: 2.6, scout: 3.4, budget: 65 },
    { boundary: 57, scout: 85, budget: 150 },
    { boundary: 57, scout: 75, budget: 400 },
    { boundary: 30, scout: 80, budget: 500 },
    { boundary: 57, scout: 85, budget: 400 },
    { boundary: 140, scout: 160, budget: 150 },
    { boundary: 8, scout: 12, budget: 40 },
  ])(
    "boundary $boundary (scouts pass up to $scout), $budget s: reports only a count a confirmation passed",
    ({ boundary, scout, budget }) => {
      const { points, spent, answer } = run(boundary, scout, budget);
      expect(spent).toBeLessThanOrEqual(budget);
      expect(answer.sessions).toBeLessThanOrEqual(boundary);
      if (answer.sessions > 0) {
        const at = points.filter((p) => p.sessions === answer.sessions && p.tier === "confirm");
        expect(at.length, "a confirmation step at the reported count").toBeGreaterThan(0);
        expect(at.every((p) => p.pass)).toBe(true);
      }
      expect(
        points.some((p) => p.tier === "confirm"),
        "a confirmation always runs",
      ).toBe(true);
    },
  );

  it("with the time to do it, finds the full run's boundary within the tolerance, though scouts overstate it", () => {
    const { answer } = run(57, 85, 2000);
    expect(answer.bound).toBe("exact");
    expect(answer.sessions).toBeGreaterThanOrEqual(57 / 1.15);
    expect(answer.sessions).toBeLessThanOrEqual(57);
  });

  it("bisects down with confirmations when the first one fails", () => {
    const { points, answer } = run(30, 80, 600);
    const confirms = points.filter((p) => p.tier === "confirm");
    expect(confirms[0]?.pass).toBe(false);
    expect(confirms.some((p) => p.pass)).toBe(true);
    expect(answer.sessions).toBeGreaterThanOrEqual(30 / 1.15);
  });

  it("the direct arm: scouts 5, 2, 3, confirms 2, and the answer is exact in about a minute", () => {
    const { points, spent, answer } = run(2.6, 2.9, 70);
    expect(points.map((p) => `${p.tier} ${p.sessions}`)).toEqual([
      "scout 5",
      "scout 2",
      "scout 3",
      "confirm 2",
    ]);
    expect(answer).toEqual({ sessions: 2, bound: "exact", unconfirmedScout: 0 });
    expect(spent).toBeLessThanOrEqual(70);
  });

  it("a budget the confirmation cannot fit reports nothing rather than a scouting figure", () => {
    const points: TieredPoint[] = [{ sessions: 5, tier: "scout", pass: true, usage: 0.1 }];
    const next = nextTieredStep(points, QUICK, COSTS, 10);
    expect(next.step).toBeUndefined();
    expect(next.wanted).toBeDefined();
    expect(tieredAnswer(points, QUICK)).toEqual({ sessions: 0, bound: "none", unconfirmedScout: 5 });
  });

  it("a full run has one tier: every step decides, and a step that does not fit is replaced by the largest that does", () => {
    const full: TieredOptions = { search: DEFAULT_SEARCH, scouting: false };
    const fullCost: TieredCosts = { scout: () => Number.NaN, confirm: (n) => (300 + 600) / scale(n) + 3 };
    const points: TieredPoint[] = [
      { sessions: 5, tier: "confirm", pass: true, usage: 0.14 },
      { sessions: 20, tier: "confirm", pass: true, usage: 0.36 },
    ];
    // The usage points at ~61 (186 s); only 150 s are left: the largest count that fits.
    expect(nextTieredStep(points, full, fullCost, 1000).step).toEqual({ sessions: 61, tier: "confirm" });
    const instead = nextTieredStep(points, full, fullCost, 150);
    expect(instead.step?.sessions).toBe(49);
    expect(instead.wanted?.sessions).toBe(61);
    expect(fullCost.confirm(49)).toBeLessThanOrEqual(150);
  });
});
