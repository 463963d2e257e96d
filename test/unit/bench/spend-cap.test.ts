import { describe, expect, it } from "vitest";
import { observationFromHeaders, SpendCap } from "../../../bench/core/spend-cap.js";

const RESET = 1_900_000_000;

describe("SpendCap", () => {
  it("counts what GitHub says was used since the baseline", () => {
    const cap = new SpendCap({ maxPoints: 10 });
    cap.baseline({ resource: "graphql", used: 100, reset: RESET });
    expect(cap.allow("graphql", 1)).toBe(true);
    cap.settle({ resource: "graphql", used: 103, reset: RESET });
    expect(cap.spent("graphql")).toBe(3);
  });

  describe("when the next request would pass the cap", () => {
    it("refuses it and stays closed", () => {
      const cap = new SpendCap({ maxPoints: 5 });
      cap.baseline({ resource: "graphql", used: 0, reset: RESET });
      expect(cap.allow("graphql", 1)).toBe(true);
      cap.settle({ resource: "graphql", used: 4, reset: RESET });
      expect(cap.allow("graphql", 2)).toBe(false);
      expect(cap.closed).toBe(true);
      expect(cap.allow("graphql", 0)).toBe(false);
      expect(cap.allow("core", 1)).toBe(false);
    });
  });

  it("counts requests in flight so concurrent sends cannot overshoot", () => {
    const cap = new SpendCap({ maxPoints: 3 });
    expect(cap.allow("graphql", 1)).toBe(true);
    expect(cap.allow("graphql", 1)).toBe(true);
    expect(cap.allow("graphql", 1)).toBe(true);
    expect(cap.allow("graphql", 1)).toBe(false);
  });

  it("adds up spending across a window reset", () => {
    const cap = new SpendCap({ maxPoints: 100 });
    cap.baseline({ resource: "graphql", used: 4990, reset: RESET });
    cap.observe({ resource: "graphql", used: 4995, reset: RESET });
    // A window first seen through an answer: its `used` is all this run's.
    cap.observe({ resource: "graphql", used: 7, reset: RESET + 3600 });
    expect(cap.spent("graphql")).toBe(12);
  });

  it("keeps REST and GraphQL apart", () => {
    const cap = new SpendCap({ maxPoints: 10, maxRest: 2 });
    cap.baseline({ resource: "core", used: 0, reset: RESET });
    cap.observe({ resource: "core", used: 2, reset: RESET });
    expect(cap.allow("graphql", 1)).toBe(true);
    expect(cap.allow("core", 1)).toBe(false);
  });

  it("refuses a non-positive cap", () => {
    expect(() => new SpendCap({ maxPoints: 0 })).toThrow(/positive/);
  });
});

describe("observationFromHeaders", () => {
  it("reads GitHub's x-ratelimit headers and ignores answers without them", () => {
    expect(
      observationFromHeaders({
        "x-ratelimit-used": "12",
        "x-ratelimit-reset": String(RESET),
        "x-ratelimit-resource": "graphql",
      }),
    ).toEqual({ resource: "graphql", used: 12, reset: RESET });
    expect(observationFromHeaders({})).toBeUndefined();
  });
});
