import { describe, expect, it } from "vitest";
import { lifeModel, midLifeOdds } from "../../../bench/core/ceiling.js";
import { loadProfile } from "../../../bench/load-profile.js";

describe("midLifeOdds", () => {
  it("mixes first and later rounds as the steady state does", () => {
    const active = loadProfile("active");
    const life = lifeModel(active);
    if (!life) throw new Error("the active profile has agents");
    const odds = midLifeOdds(active);
    // 0.43 CI failures and 0.44 rejections per life: 1.87 pushes, 1.44 reviews.
    expect(odds.ciFailure).toBeCloseTo(life.ciFailures / (1 + life.ciFailures + life.reviewRejections), 9);
    expect(odds.ciFailure).toBeGreaterThan(active.world.ciFailureRateAfterFix);
    expect(odds.ciFailure).toBeLessThan(active.world.ciFailureRate);
    expect(odds.approve).toBeGreaterThan(active.world.approveRate);
    expect(odds.approve).toBeLessThan(active.world.approveRateAfterFix);
    expect(odds.ciFailure).toBeCloseTo(0.23, 2);
    expect(odds.approve).toBeCloseTo(0.69, 2);
  });

  it("falls back to the first round's odds for a profile without agents", () => {
    const quiet = loadProfile("quiet");
    expect(midLifeOdds(quiet)).toEqual({
      ciFailure: quiet.world.ciFailureRate,
      approve: quiet.world.approveRate,
    });
  });
});
