import { describe, expect, it } from "vitest";
import { initialPhases } from "../../../bench/core/initial-phases.js";
import { createRng } from "../../../bench/core/rng.js";

describe("initialPhases", () => {
  it("gives each phase its share of the sessions, as closely as integers allow", () => {
    const weights = { work: 0.4, ci: 0.25, review: 0.2, fix: 0.15 };
    for (const seed of [1, 2, 3]) {
      const phases = initialPhases(weights, 20, createRng(seed));
      const count = (p: string) => phases.filter((x) => x.phase === p).length;
      expect(count("work")).toBe(8);
      expect(count("ci")).toBe(5);
      expect(count("review")).toBe(4);
      expect(count("fix")).toBe(3);
    }
  });

  it("never picks a zero-weight phase and keeps elapsed within [0, 1)", () => {
    const phases = initialPhases({ work: 1, ci: 0 }, 7, createRng(9));
    expect(phases.every((p) => p.phase === "work" && p.elapsed >= 0 && p.elapsed < 1)).toBe(true);
    expect(initialPhases({ work: 0 }, 3, createRng(1))).toEqual([]);
  });

  it("spreads each phase's sessions evenly through it: the k-th of n is (k + u) / n along", () => {
    const phases = initialPhases({ work: 0.4, ci: 0.25, review: 0.2, fix: 0.15 }, 179, createRng(1));
    for (const phase of ["work", "ci", "review", "fix"]) {
      const elapsed = phases
        .filter((p) => p.phase === phase)
        .map((p) => p.elapsed)
        .sort((a, b) => a - b);
      const n = elapsed.length;
      const u = (elapsed[0] ?? 0) * n;
      expect(u).toBeGreaterThanOrEqual(0);
      expect(u).toBeLessThan(1);
      for (const [k, e] of elapsed.entries()) expect(e).toBeCloseTo((k + u) / n, 9);
    }
  });
});
