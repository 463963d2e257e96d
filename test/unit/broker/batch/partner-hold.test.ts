import { describe, expect, it } from "vitest";
import { ArrivalTracker } from "../../../../broker/batch/arrival-tracker.js";
import { expectedPartners, partnerHoldMs } from "../../../../broker/batch/core/partner-hold.js";

const settings = { windowMs: 600, minExpectedPartners: 0.1, rateWindowMs: 60_000 };

describe("partnerHoldMs", () => {
  it.each([
    { name: "no other session querying", arrivals: 0, expected: 5 },
    { name: "a few other queries a minute (0.09 expected)", arrivals: 9, expected: 5 },
    { name: "enough for 0.1 expected partners", arrivals: 10, expected: 600 },
    { name: "a busy broker", arrivals: 5_000, expected: 600 },
  ])("waits $expected ms with $name", ({ arrivals, expected }) => {
    expect(partnerHoldMs(5, arrivals, settings)).toBe(expected);
  });

  it("never shortens a class window already longer than the hold", () => {
    expect(partnerHoldMs(800, 5_000, settings)).toBe(800);
  });

  it("expects partners in proportion to arrivals and the hold's length", () => {
    expect(expectedPartners(100, settings)).toBeCloseTo(1);
    expect(expectedPartners(100, { ...settings, windowMs: 1200 })).toBeCloseTo(2);
    expect(expectedPartners(100, { ...settings, rateWindowMs: 0 })).toBe(0);
  });
});

describe("ArrivalTracker", () => {
  describe("when sessions submit", () => {
    it("counts only other sessions' arrivals within the window", () => {
      const t = new ArrivalTracker({ windowMs: 1000, maxEntries: 100 });
      t.observe("a", 0);
      t.observe("a", 10);
      t.observe("b", 20);
      expect(t.othersThan("a", 30)).toBe(1);
      expect(t.othersThan("b", 30)).toBe(2);
      expect(t.othersThan("c", 30)).toBe(3);
      expect(t.othersThan(undefined, 30)).toBe(3);
      // a's arrivals at 0 and 10 leave the window; b's at 20 stays until 1020.
      expect(t.othersThan("c", 1015)).toBe(1);
      expect(t.othersThan("c", 1021)).toBe(0);
    });

    it("keeps at most maxEntries, the newest", () => {
      const t = new ArrivalTracker({ windowMs: 1_000_000, maxEntries: 3 });
      for (let i = 0; i < 5000; i += 1) t.observe(i % 2 === 0 ? "a" : "b", i);
      expect(t.size).toBe(3);
      // The newest three: b@4997, a@4998, b@4999.
      expect(t.othersThan("a", 5000)).toBe(2);
      expect(t.othersThan("b", 5000)).toBe(1);
    });
  });
});
