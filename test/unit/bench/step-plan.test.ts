import { describe, expect, it } from "vitest";
import { expectedStepSeconds, FULL_PLAN, QUICK_PLAN, stepTiming } from "../../../bench/core/step-plan.js";

describe("stepTiming", () => {
  it("measures about the same session-seconds per step, within the floor and the ceiling", () => {
    expect(stepTiming(5, 2400, QUICK_PLAN).measureSimS).toBe(300);
    expect(stepTiming(20, 2400, QUICK_PLAN).measureSimS).toBe(150);
    expect(stepTiming(500, 2400, QUICK_PLAN).measureSimS).toBe(120);
    expect(stepTiming(5, 2400, FULL_PLAN).measureSimS).toBe(1800);
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
