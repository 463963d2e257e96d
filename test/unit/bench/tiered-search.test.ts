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
/** Windows sized by session-seconds (core/step-plan.ts, docs/decisions/0024). */
const COSTS: TieredCosts = {
  scout: (n) => (60 + Math.min(120, Math.max(60, 6000 / n))) / scale(n) + 3,
  confirm: (n) => (60 + Math.min(600, Math.max(240, 36_000 / n))) / scale(n) + 3,
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

  it("the direct arm: scouts 5 and 3, confirms 2 without scouting it, and the answer is exact in about 35 s", () => {
    const { points, spent, answer } = run(2.6, 2.9, 70);
    expect(points.map((p) => `${p.tier} ${p.sessions}`)).toEqual(["scout 5", "scout 3", "confirm 2"]);
    expect(answer).toEqual({ sessions: 2, bound: "exact", unconfirmedScout: 0 });
    expect(spent).toBeLessThanOrEqual(COSTS.scout(5) + COSTS.scout(3) + COSTS.confirm(2));
  });

  it("the broker at 400 requests/s (a confirmation fixed at 600 s): scouts 5, climbs to where a confirmation at twice the count fits, confirms within 15 % of the boundary", () => {
    // The quick plan at 400 requests/s (core/step-plan.ts): every scout 120 s, ×≤30.
    const scale400 = (n: number) => Math.min(30, 600 / n);
    const costs: TieredCosts = {
      scout: (n) => (60 + 120) / scale400(n) + 3,
      confirm: (n) => (60 + 600) / scale400(n) + 3,
    };
    const options: TieredOptions = { ...QUICK, search: { ...QUICK.search, ceiling: 270 } };
    // Boundary 125 (the full run's ~123-130); short windows understate, so scouts pass up to 165.
    const points: TieredPoint[] = [];
    let spent = 0;
    const budget = 180;
    for (;;) {
      const next = nextTieredStep(points, options, costs, budget - spent);
      if (!next.step) break;
      const { sessions, tier } = next.step;
      spent += tier === "scout" ? costs.scout(sessions) : costs.confirm(sessions);
      const usage = sessions / (tier === "scout" ? 165 : 125);
      points.push({ sessions, tier, pass: usage <= 1, usage, budgetOnly: usage > 1 });
    }
    const steps = points.map((p) => `${p.tier} ${p.sessions}`);
    expect(steps.slice(0, 1)).toEqual(["scout 5"]);
    const top = points[1];
    expect(top?.tier).toBe("scout");
    // The second scout is the largest count whose scout and a confirmation at twice its count
    // (0024: `SCOUT_REACH`) fit what was left.
    const left = budget - costs.scout(5);
    const n = top?.sessions ?? 0;
    expect(costs.scout(n) + costs.confirm(2 * n)).toBeLessThanOrEqual(left);
    expect(costs.scout(n + 1) + costs.confirm(2 * n + 2)).toBeGreaterThan(left);
    expect(spent).toBeLessThanOrEqual(budget);
    const answer = tieredAnswer(points, options);
    expect(answer.sessions).toBeGreaterThanOrEqual(Math.ceil(125 * 0.85));
    expect(answer.sessions).toBeLessThanOrEqual(125);
    expect(points.filter((p) => p.tier === "confirm").map((p) => p.pass)).toEqual([true]);
  });

  it("at 200 requests/s with a quick run's ~195 s for the broker: scout 5, scout where a confirmation up to twice its count still fits, confirm the scouts' prediction (0024)", () => {
    const options = { ...QUICK, search: { ...QUICK.search, ceiling: 270 } };
    const points: TieredPoint[] = [{ sessions: 5, tier: "scout", pass: true, usage: 0.03 }];
    const left = 195 - COSTS.scout(5);
    const second = nextTieredStep(points, options, COSTS, left).step;
    expect(second?.tier).toBe("scout");
    const n = second?.sessions ?? 0;
    expect(COSTS.scout(n) + COSTS.confirm(2 * n)).toBeLessThanOrEqual(left);
    expect(COSTS.scout(n + 1) + COSTS.confirm(2 * n + 2)).toBeGreaterThan(left);
    expect(n).toBeGreaterThanOrEqual(60);
    // The scout at n spends 44 %: ÷ 0.7, the line through the two scouts reaches 100 % at ~118;
    // lowered 5 %: 113, a confirmation the time left holds (~149 s).
    const two: TieredPoint[] = [...points, { sessions: n, tier: "scout", pass: true, usage: 0.44 }];
    const third = nextTieredStep(two, options, COSTS, left - COSTS.scout(n)).step;
    expect(third?.tier).toBe("confirm");
    expect(third?.sessions).toBeGreaterThan(n * 1.4);
    expect(COSTS.confirm(third?.sessions ?? 0)).toBeLessThanOrEqual(left - COSTS.scout(n));
  });

  it.each([
    // boundary (confirmations), scouts' boundary (short windows understate), the broker's time
    { boundary: 130, scout: 170, budget: 195, least: 0.85 },
    { boundary: 160, scout: 200, budget: 195, least: 0.8 },
    { boundary: 110, scout: 150, budget: 195, least: 0.85 },
    { boundary: 90, scout: 100, budget: 195, least: 0.7 },
  ])(
    "the broker's quick search at 200 requests/s, boundary $boundary: three steps, a figure a confirmation passed, ≥ $least of it",
    ({ boundary, scout, budget, least }) => {
      const { points, spent, answer } = run(boundary, scout, budget, {
        ...QUICK,
        search: { ...QUICK.search, ceiling: 270 },
      });
      expect(points.map((p) => p.tier)).toEqual(["scout", "scout", "confirm"]);
      expect(spent).toBeLessThanOrEqual(budget);
      expect(answer.sessions).toBeLessThanOrEqual(boundary);
      expect(answer.sessions).toBeGreaterThanOrEqual(boundary * least);
    },
  );

  it("confirms the scouts' answer where rounding alone would lower it (2 sessions at 70.2 %: 2, not 1)", () => {
    const points: TieredPoint[] = [
      { sessions: 5, tier: "scout", pass: false, usage: 1.82, budgetOnly: true },
      { sessions: 2, tier: "scout", pass: true, usage: 0.702 },
      { sessions: 3, tier: "scout", pass: false, usage: 1.27, budgetOnly: true },
    ];
    expect(nextTieredStep(points, QUICK, COSTS, 60).step).toEqual({ sessions: 2, tier: "confirm" });
  });

  it("a scout that fails ends the climb: the usage brackets the boundary as before", () => {
    const points: TieredPoint[] = [
      { sessions: 5, tier: "scout", pass: true, usage: 0.06 },
      { sessions: 120, tier: "scout", pass: false, usage: 4, budgetOnly: true },
    ];
    const next = nextTieredStep(points, QUICK, COSTS, 1000);
    // Interpolated where usage crosses 100 %: 5 + (1 − 0.06) / (4 − 0.06) × 115 ≈ 32, not the ceiling.
    expect(next.step).toEqual({ sessions: 32, tier: "scout" });
  });

  it("a scout that fails on wait or visibility alone, under budget, does not stop the climb: the confirmation judges those", () => {
    const points: TieredPoint[] = [
      { sessions: 5, tier: "scout", pass: true, usage: 0.12 },
      { sessions: 122, tier: "scout", pass: false, usage: 0.86, budgetOnly: false },
    ];
    // Confirmed where the scouts' usage ÷ 0.7 stays within budget: 122 × 0.7 ÷ 0.86 = 99, lowered 5 %.
    expect(nextTieredStep(points, QUICK, COSTS, 230).step).toEqual({ sessions: 94, tier: "confirm" });
    const confirmed: TieredPoint[] = [...points, { sessions: 99, tier: "confirm", pass: true, usage: 0.9 }];
    expect(tieredAnswer(confirmed, QUICK)).toEqual({ sessions: 99, bound: "at-least", unconfirmedScout: 0 });
    // Over budget too, it is an upper bound as before.
    const over: TieredPoint[] = [
      { sessions: 5, tier: "scout", pass: true, usage: 0.12 },
      { sessions: 122, tier: "scout", pass: false, usage: 1.3, budgetOnly: false },
      { sessions: 60, tier: "confirm", pass: true, usage: 0.6 },
    ];
    expect(nextTieredStep(over.slice(0, 2), QUICK, COSTS, 230).step?.sessions).toBeLessThan(122);
    expect(tieredAnswer([...over, { sessions: 130, tier: "confirm", pass: true }], QUICK).sessions).toBe(60);
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
    // The usage predicts ~64: the safe step is 60 (183 s); with the time for it after a failure,
    // a bold one past the prediction (64 × 1.64 = 104, 315 s), or as far as the time leaves
    // room for the safe one (400 s: 71); without it, the safe one; with 150 s, the largest count
    // that fits.
    expect(nextTieredStep(points, full, fullCost, 1000).step).toEqual({ sessions: 104, tier: "confirm" });
    expect(nextTieredStep(points, full, fullCost, 400).step).toEqual({ sessions: 71, tier: "confirm" });
    expect(nextTieredStep(points, full, fullCost, 300).step).toEqual({ sessions: 60, tier: "confirm" });
    const instead = nextTieredStep(points, full, fullCost, 150);
    expect(instead.step?.sessions).toBe(49);
    expect(instead.wanted?.sessions).toBe(60);
    expect(fullCost.confirm(49)).toBeLessThanOrEqual(150);
  });
});
