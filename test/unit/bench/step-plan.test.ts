import { describe, expect, it } from "vitest";
import {
  expectedStepSeconds,
  FULL_PLAN,
  QUICK_PLAN,
  REQUESTS_PER_SECOND,
  stepTiming,
} from "../../../bench/core/step-plan.js";

describe("stepTiming", () => {
  it("measures about the same session-seconds per full step, within the floor and the ceiling; a quick scout is 120 s", () => {
    expect(stepTiming(5, 2400, QUICK_PLAN).measureSimS).toBe(120);
    expect(stepTiming(20, 2400, QUICK_PLAN).measureSimS).toBe(120);
    expect(stepTiming(500, 2400, QUICK_PLAN).measureSimS).toBe(120);
    expect(stepTiming(5, 2400, FULL_PLAN).measureSimS).toBe(1800);
    expect(stepTiming(20, 2400, FULL_PLAN).measureSimS).toBe(900);
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
