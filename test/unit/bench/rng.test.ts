import { describe, expect, it } from "vitest";
import { createRng, deriveSeed } from "../../../bench/core/rng.js";

describe("createRng", () => {
  describe("when two streams share a seed", () => {
    it("draws the same sequence", () => {
      const a = createRng(42);
      const b = createRng(42);
      expect(Array.from({ length: 5 }, () => a.next())).toEqual(Array.from({ length: 5 }, () => b.next()));
    });
  });

  describe("when labels differ", () => {
    it("derives independent seeds, stable across runs", () => {
      expect(deriveSeed(1, "session-1")).not.toBe(deriveSeed(1, "session-2"));
      expect(deriveSeed(1, "session-1")).toBe(deriveSeed(1, "session-1"));
      expect(deriveSeed(1, "x")).not.toBe(deriveSeed(2, "x"));
    });
  });

  it("keeps int() within both bounds", () => {
    const rng = createRng(7);
    const seen = new Set(Array.from({ length: 500 }, () => rng.int(1, 3)));
    expect([...seen].sort()).toEqual([1, 2, 3]);
  });

  it("picks keys in proportion to their weights and never a zero-weight one", () => {
    const rng = createRng(3);
    const counts = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 4000; i++) counts[rng.pick({ a: 3, b: 1, c: 0 }) as "a" | "b" | "c"]++;
    expect(counts.c).toBe(0);
    expect(counts.a / counts.b).toBeGreaterThan(2.5);
    expect(counts.a / counts.b).toBeLessThan(3.5);
    expect(rng.pick({ a: 0 })).toBeUndefined();
  });
});
