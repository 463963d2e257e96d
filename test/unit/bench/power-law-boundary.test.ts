import { describe, expect, it } from "vitest";
import { DEFAULT_SEARCH, powerLawBoundary, type SearchPoint } from "../../../bench/core/session-search.js";
import { firstConfirmation } from "../../../bench/core/tiered-search.js";

const scout = (sessions: number, graphql: number, rest: number): SearchPoint => ({
  sessions,
  pass: true,
  usage: Math.max(graphql, rest),
  usageByBudget: { graphql, rest },
});

// Quick's scouts on 3b4b75f (docs/decisions/0031): GraphQL grows as N^0.81, REST as N^0.78.
const QUICK_SCOUTS = [scout(5, 0.054, 0.042), scout(75, 0.486, 0.351)];

describe("powerLawBoundary", () => {
  it("fits each budget apart and takes the one that binds first", () => {
    const k = Math.log(0.486 / 0.054) / Math.log(75 / 5);
    expect(powerLawBoundary(QUICK_SCOUTS)).toBeCloseTo(75 * (1 / 0.486) ** (1 / k), 6);
    // Above the line from the origin through the larger scout (154), which assumes no sharing.
    expect(powerLawBoundary(QUICK_SCOUTS)).toBeGreaterThan(180);
    expect(powerLawBoundary(QUICK_SCOUTS)).toBeLessThan(186);
  });

  it("never bends further than a square root, nor grows faster than linearly", () => {
    // GraphQL flat between the scouts (k ≈ 0): held at ½; REST convex (k > 1): held at 1.
    expect(powerLawBoundary([scout(50, 0.4, 0.05), scout(100, 0.41, 0.1)])).toBeCloseTo(
      100 * (1 / 0.41) ** 2,
      6,
    );
    expect(powerLawBoundary([scout(50, 0.01, 0.1), scout(100, 0.02, 0.4)])).toBeCloseTo(250, 6);
  });

  it("needs two passes that say each budget's usage", () => {
    expect(powerLawBoundary([scout(75, 0.5, 0.3)])).toBeUndefined();
    expect(
      powerLawBoundary([
        { sessions: 5, pass: true, usage: 0.05 },
        { sessions: 75, pass: true, usage: 0.5 },
      ]),
    ).toBeUndefined();
  });
});

describe("firstConfirmation", () => {
  it("aims 10 % inside the scouts' power-law boundary, never past the ceiling", () => {
    const fitted = powerLawBoundary(QUICK_SCOUTS) ?? 0;
    expect(firstConfirmation(QUICK_SCOUTS, { ...DEFAULT_SEARCH, ceiling: 270 })).toBe(
      Math.floor(fitted * 0.9),
    );
    expect(firstConfirmation(QUICK_SCOUTS, { ...DEFAULT_SEARCH, ceiling: 120 })).toBe(120);
  });
});
