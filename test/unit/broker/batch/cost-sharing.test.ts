import { describe, expect, it } from "vitest";
import { MICRO_POINTS_PER_POINT, shareCost } from "../../../../broker/batch/index.js";
import { seededRng } from "./support/random-variables.js";

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

describe("shareCost", () => {
  describe("when members asked for different numbers of requests", () => {
    it("splits in proportion to requests", () => {
      expect(shareCost(3, [100, 200]).points).toEqual([1, 2]);
    });

    it("counts a member without connections as one request", () => {
      expect(shareCost(1, [0, 0, 0, 0]).points).toEqual([0.25, 0.25, 0.25, 0.25]);
      expect(shareCost(1, [0, 1]).points).toEqual([0.5, 0.5]);
    });

    it("gives remainders to the largest fractions, ties to the earlier member", () => {
      const shares = shareCost(1, [1, 1, 1]);
      expect(shares.micro).toEqual([333_334, 333_333, 333_333]);
    });
  });

  describe("when shares are summed", () => {
    it("adds up to the real cost exactly, for random batches", () => {
      const rng = seededRng(99);
      for (let round = 0; round < 500; round++) {
        const total = Math.floor(rng() * 60) + (rng() < 0.3 ? 0.5 : 0);
        const requests = Array.from({ length: 1 + Math.floor(rng() * 50) }, () => Math.floor(rng() * 300));
        const { micro, points } = shareCost(total, requests);
        expect(sum(micro)).toBe(Math.round(total * MICRO_POINTS_PER_POINT));
        expect(Math.abs(sum(points) - total)).toBeLessThan(1e-6);
        expect(micro.every((m) => Number.isInteger(m) && m >= 0)).toBe(true);
      }
    });

    it("shares nothing when nothing was spent, and nothing among nobody", () => {
      expect(shareCost(0, [5, 5]).points).toEqual([0, 0]);
      expect(shareCost(4, []).points).toEqual([]);
    });
  });
});
