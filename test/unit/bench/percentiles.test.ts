import { describe, expect, it } from "vitest";
import { percentile, percentiles } from "../../../bench/core/percentiles.js";

describe("percentile", () => {
  it("is nearest-rank: always an observed value", () => {
    const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(sorted, 50)).toBe(5);
    expect(percentile(sorted, 95)).toBe(10);
    expect(percentile(sorted, 0)).toBe(1);
  });

  describe("when there are no samples", () => {
    it("says null, never 0", () => {
      expect(percentile([], 95)).toBeNull();
      expect(percentiles([], [50, 99] as const)).toEqual({ p50: null, p99: null });
    });
  });

  it("sorts unsorted input before ranking", () => {
    expect(percentiles([9, 1, 5], [50, 99] as const)).toEqual({ p50: 5, p99: 9 });
  });
});
