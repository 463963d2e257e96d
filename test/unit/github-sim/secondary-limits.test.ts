import { describe, expect, it } from "vitest";
import { DEFAULT_SECONDARY_LIMITS, SecondaryLimits } from "../../../github-sim/core/secondary-limits.js";

const T0 = 1_800_000_000_000;
const rest = (endpoint = "GET /x", points = 1) => ({
  kind: "rest" as const,
  endpoint,
  points,
  createsContent: false,
});

describe("SecondaryLimits", () => {
  describe("when REST points per minute run out", () => {
    it("refuses the request over the limit with the seconds until the window drains", () => {
      const s = new SecondaryLimits({ ...DEFAULT_SECONDARY_LIMITS, restPointsPerMinute: 10 });
      for (let i = 0; i < 10; i++) expect(s.admit(rest(), T0 + i * 1000).ok).toBe(true);
      const verdict = s.admit(rest(), T0 + 10_500);
      expect(verdict).toEqual({ ok: false, retryAfterS: 50, reason: "rest points per minute" });
      expect(s.admit(rest(), T0 + 60_000).ok).toBe(true);
    });

    it("counts each endpoint separately and writes as 5 points", () => {
      const s = new SecondaryLimits({ ...DEFAULT_SECONDARY_LIMITS, restPointsPerMinute: 10 });
      expect(s.admit(rest("DELETE /r", 5), T0).ok).toBe(true);
      expect(s.admit(rest("DELETE /r", 5), T0).ok).toBe(true);
      expect(s.admit(rest("DELETE /r", 5), T0).ok).toBe(false);
      expect(s.admit(rest("GET /other"), T0).ok).toBe(true);
    });
  });

  describe("when content creation runs out", () => {
    it("applies the per-minute cap to content-creating requests only", () => {
      const s = new SecondaryLimits({ ...DEFAULT_SECONDARY_LIMITS, contentCreationPerMinute: 2 });
      const create = { kind: "graphql" as const, endpoint: "", points: 5, createsContent: true };
      expect(s.admit(create, T0).ok).toBe(true);
      expect(s.admit(create, T0).ok).toBe(true);
      expect(s.admit(create, T0)).toMatchObject({ ok: false, reason: "content creation" });
      expect(s.admit({ ...create, createsContent: false }, T0).ok).toBe(true);
    });

    it("applies the hourly cap too", () => {
      const s = new SecondaryLimits({ ...DEFAULT_SECONDARY_LIMITS, contentCreationPerHour: 1 });
      const create = { kind: "rest" as const, endpoint: "POST /c", points: 5, createsContent: true };
      expect(s.admit(create, T0).ok).toBe(true);
      expect(s.admit(create, T0 + 120_000)).toMatchObject({ ok: false, retryAfterS: 3480 });
    });
  });

  it("limits GraphQL points per minute", () => {
    const s = new SecondaryLimits({ ...DEFAULT_SECONDARY_LIMITS, graphqlPointsPerMinute: 6 });
    const mutation = { kind: "graphql" as const, endpoint: "", points: 5, createsContent: false };
    expect(s.admit(mutation, T0).ok).toBe(true);
    expect(s.admit({ ...mutation, points: 1 }, T0).ok).toBe(true);
    expect(s.admit({ ...mutation, points: 1 }, T0).ok).toBe(false);
  });

  it("caps concurrent requests", () => {
    const s = new SecondaryLimits({ ...DEFAULT_SECONDARY_LIMITS, concurrent: 2 });
    expect([s.enter(), s.enter(), s.enter()]).toEqual([true, true, false]);
    s.leave();
    expect(s.enter()).toBe(true);
  });
});
