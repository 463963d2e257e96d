import { describe, expect, it } from "vitest";
import {
  chooseTimeScale,
  perHour,
  planStep,
  proratedLimit,
  toRealMs,
  toSimMs,
} from "../../../bench/core/time-scale.js";

describe("chooseTimeScale", () => {
  const base = { requestsPerSessionHour: 2400, targetRequestsPerSecond: 200, maxScale: 60, minScale: 0.25 };

  it("depends on the session count alone, so every arm of a step shares it", () => {
    expect(chooseTimeScale({ ...base, sessions: 20 })).toBe(chooseTimeScale({ ...base, sessions: 20 }));
    // 20 sessions × 2400/h = 13.3 req/s at ×1, so ×15 carries 200 req/s.
    expect(chooseTimeScale({ ...base, sessions: 20 })).toBe(15);
  });

  it("is capped for small steps and dilates (below 1) for very large ones", () => {
    expect(chooseTimeScale({ ...base, sessions: 1 })).toBe(60);
    expect(chooseTimeScale({ ...base, sessions: 1000 })).toBeCloseTo(0.3, 5);
    expect(chooseTimeScale({ ...base, sessions: 100_000 })).toBe(0.25);
  });

  it("is the two-digit figure it prints, without binary noise (45 sessions: 6.6, not 6.6000000000000005)", () => {
    expect(
      chooseTimeScale({
        sessions: 45,
        requestsPerSessionHour: 2400,
        targetRequestsPerSecond: 200,
        maxScale: 30,
      }),
    ).toBe(6.6);
  });

  it("never grows with more sessions", () => {
    let last = Number.POSITIVE_INFINITY;
    for (const n of [1, 5, 20, 80, 320, 1000]) {
      const k = chooseTimeScale({ ...base, sessions: n });
      expect(k).toBeLessThanOrEqual(last);
      last = k;
    }
  });
});

describe("planStep", () => {
  it("covers warm-up and window with one budget window and prorates the hourly budget to it", () => {
    const t = planStep({ scale: 30, warmupSimS: 60, measureSimS: 600 });
    expect(t.budgetWindowSimS).toBeCloseTo(693, 5);
    expect(t.budgetFraction).toBeCloseTo(693 / 3600, 5);
    expect(t.measureRealMs).toBe(20_000);
    expect(t.warmupRealMs).toBe(2000);
    expect(proratedLimit(5000, t.budgetFraction)).toBe(962);
  });
});

describe("conversions", () => {
  it("projects per simulated hour and converts between clocks", () => {
    expect(perHour(100, 600)).toBe(600);
    expect(perHour(5, 0)).toBe(0);
    expect(toRealMs(3000, 30)).toBe(100);
    expect(toSimMs(100, 30)).toBe(3000);
  });
});
