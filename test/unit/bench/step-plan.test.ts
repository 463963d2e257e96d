import { describe, expect, it } from "vitest";
import {
  confirmationPlan,
  expectedStepSeconds,
  FULL_PLAN,
  QUICK_PLAN,
  REQUESTS_PER_SECOND,
  stepTiming,
} from "../../../bench/core/step-plan.js";

describe("stepTiming", () => {
  it.each([
    // sessions, scout window, confirmation window, full window
    { n: 2, scout: 120, confirm: 300, full: 1800 },
    { n: 5, scout: 120, confirm: 300, full: 1800 },
    { n: 20, scout: 120, confirm: 300, full: 1800 },
    { n: 60, scout: 100, confirm: 300, full: 600 },
    { n: 80, scout: 75, confirm: 300, full: 450 },
    { n: 120, scout: 60, confirm: 300, full: 300 },
    { n: 150, scout: 60, confirm: 240, full: 240 },
    { n: 500, scout: 60, confirm: 240, full: 240 },
  ])(
    "$n sessions: windows sized by session-seconds, scout $scout s, confirmation $confirm s, full $full s",
    ({ n, scout, confirm, full }) => {
      expect(stepTiming(n, 2400, QUICK_PLAN).measureSimS).toBeCloseTo(scout, 0);
      expect(stepTiming(n, 2400, confirmationPlan(QUICK_PLAN)).measureSimS).toBeCloseTo(confirm, 0);
      expect(stepTiming(n, 2400, FULL_PLAN).measureSimS).toBeCloseTo(full, 0);
    },
  );

  it("a confirmation costs ~the same wall time from 120 to 150 sessions at 200 requests/s (0024), where a 600 s floor cost ~2.2 s per session; a 2-session one ~12 s (0031)", () => {
    const confirm = confirmationPlan(QUICK_PLAN);
    const seconds = (n: number) => expectedStepSeconds(stepTiming(n, 2400, confirm), confirm);
    for (const n of [120, 140, 150]) {
      expect(seconds(n)).toBeGreaterThan(130);
      expect(seconds(n)).toBeLessThan(156);
    }
    expect(seconds(2)).toBeLessThan(16);
    const old = { ...QUICK_PLAN, fixedWindowS: 600 };
    expect(expectedStepSeconds(stepTiming(120, 2400, old), old)).toBeGreaterThan(260);
    // Quick confirms a count as the full run measures it from 120 sessions up (decision 0015).
    for (const n of [120, 137, 180]) {
      expect(stepTiming(n, 2400, confirm).measureSimS).toBe(stepTiming(n, 2400, FULL_PLAN).measureSimS);
      expect(stepTiming(n, 2400, confirm).scale).toBe(stepTiming(n, 2400, FULL_PLAN).scale);
    }
    // A scout near the broker's boundary stays under ~50 s.
    expect(expectedStepSeconds(stepTiming(115, 2400, QUICK_PLAN), QUICK_PLAN)).toBeLessThan(50);
  });

  it("compresses for 200 requests/s by default, quick and full alike; --requests-per-s 400 halves a confirmation's wall time", () => {
    expect(REQUESTS_PER_SECOND).toBe(200);
    expect(QUICK_PLAN.targetRequestsPerSecond).toBe(FULL_PLAN.targetRequestsPerSecond);
    for (const n of [20, 44, 100, 123]) {
      expect(stepTiming(n, 2400, QUICK_PLAN).scale).toBe(stepTiming(n, 2400, FULL_PLAN).scale);
    }
    expect(stepTiming(100, 2400, FULL_PLAN).scale).toBe(3);
    const confirm = { ...QUICK_PLAN, fixedWindowS: 600 };
    const at110 = expectedStepSeconds(stepTiming(110, 2400, confirm), confirm);
    expect(at110).toBeGreaterThan(110 * 2.1);
    const fast = { ...confirm, targetRequestsPerSecond: 400 };
    expect(stepTiming(100, 2400, fast).scale).toBe(6);
    const fastAt110 = expectedStepSeconds(stepTiming(110, 2400, fast), fast);
    expect(fastAt110).toBeGreaterThan(110 * 1.05);
    expect(fastAt110).toBeLessThan(110 * 1.2);
  });

  it("honours --window-s for every step", () => {
    expect(stepTiming(80, 2400, { ...QUICK_PLAN, fixedWindowS: 900 }).measureSimS).toBe(900);
  });

  it("keeps a quick small step to seconds of wall time, at the full run's compression (0006)", () => {
    const t = stepTiming(5, 2400, QUICK_PLAN);
    expect(t.scale).toBe(30);
    expect(t.scale).toBe(stepTiming(5, 2400, FULL_PLAN).scale);
    expect(expectedStepSeconds(t, QUICK_PLAN)).toBeLessThan(20);
  });
});
