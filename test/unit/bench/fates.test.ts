import { describe, expect, it } from "vitest";
import { createFates, phaseLength, weylSequence } from "../../../bench/core/fates.js";
import { createRng } from "../../../bench/core/rng.js";

/** The most that any run of `length` consecutive draws strays from rate × length. */
function worstWindowError(draws: readonly boolean[], rate: number, length: number): number {
  let worst = 0;
  for (let start = 0; start + length <= draws.length; start++) {
    const hits = draws.slice(start, start + length).filter(Boolean).length;
    worst = Math.max(worst, Math.abs(hits - rate * length));
  }
  return worst;
}

describe("createFates", () => {
  it("gives every run of consecutive fates its share, where independent coins stray by several", () => {
    const fates = createFates(1).stream("push-first");
    const spread = Array.from({ length: 400 }, () => fates.chance(0.3));
    const coin = createRng(1);
    const coins = Array.from({ length: 400 }, () => coin.chance(0.3));
    // 20 first pushes in a row (a boundary step's window): 6 fail, give or take 2.
    expect(worstWindowError(spread, 0.3, 20)).toBeLessThanOrEqual(2);
    expect(worstWindowError(coins, 0.3, 20)).toBeGreaterThan(3);
    expect(spread.filter(Boolean).length).toBeGreaterThanOrEqual(119);
    expect(spread.filter(Boolean).length).toBeLessThanOrEqual(121);
  });

  it("spreads durations over their range: every dozen draws averages near the middle", () => {
    const worstBlockMean = (next: () => number) => {
      let worst = 0;
      for (let block = 0; block < 50; block++) {
        const lengths = Array.from({ length: 12 }, () => 600 + 600 * next());
        expect(lengths.every((x) => x >= 600 && x < 1200)).toBe(true);
        worst = Math.max(worst, Math.abs(lengths.reduce((a, b) => a + b, 0) / 12 - 900));
      }
      return worst;
    };
    const work = createFates(7).stream("work-length");
    const coin = createRng(7);
    // Independent draws: a dozen's mean has a standard deviation of 50 s.
    expect(worstBlockMean(() => work.next())).toBeLessThan(50);
    expect(worstBlockMean(() => coin.next())).toBeGreaterThan(80);
  });

  it("keeps one stream per kind, the same for a seed and different between kinds and seeds", () => {
    const a = createFates(3);
    expect(a.stream("review-first")).toBe(a.stream("review-first"));
    const first = (seed: number, kind: "review-first" | "review-delay") =>
      Array.from({ length: 4 }, () => createFates(seed).stream(kind).next());
    expect(first(3, "review-first")).toEqual(first(3, "review-first"));
    expect(createFates(3).stream("review-first").next()).not.toBe(
      createFates(3).stream("review-delay").next(),
    );
    expect(createFates(3).stream("review-first").next()).not.toBe(
      createFates(4).stream("review-first").next(),
    );
  });

  it("picks watch styles in their proportions over any dozen agents", () => {
    const watch = createFates(2).stream("ci-watch");
    const styles = Array.from({ length: 100 }, () => watch.pick({ a: 0.6, b: 0.25, c: 0.15 }));
    for (let start = 0; start + 20 <= styles.length; start++) {
      const as = styles.slice(start, start + 20).filter((s) => s === "a").length;
      expect(Math.abs(as - 12)).toBeLessThanOrEqual(2);
    }
  });
});

describe("weylSequence", () => {
  it("stays in [0, 1) from any start", () => {
    const next = weylSequence(3.75, Math.sqrt(2));
    const values = Array.from({ length: 1000 }, next);
    expect(values[0]).toBe(0.75);
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
  });
});

describe("phaseLength", () => {
  it("draws a whole phase from its range when nothing of it is behind the session", () => {
    const rng = createFates(1).stream("work-length");
    const lengths = Array.from({ length: 200 }, () => phaseLength(rng, { min: 120, max: 600 }, 0));
    expect(lengths.every((x) => x >= 120 && x < 600)).toBe(true);
    expect(Math.abs(lengths.reduce((a, b) => a + b, 0) / 200 - 360)).toBeLessThan(5);
  });

  it("leaves a part-way session the steady state's remainder: longer phases are the likelier to be found", () => {
    // Steady-state remainder of a phase uniform on [120, 600]: E[L²] / (2 E[L]) = 206.7 s, where
    // (1 − elapsed) × a plain uniform length gives 180 s.
    const rng = createFates(2).stream("review-delay");
    const part = createFates(2).stream("mid-life-fix-cause");
    const left = Array.from({ length: 2000 }, () => phaseLength(rng, { min: 120, max: 600 }, part.next()));
    const mean = left.reduce((a, b) => a + b, 0) / left.length;
    expect(mean).toBeGreaterThan(200);
    expect(mean).toBeLessThan(214);
  });
});

describe("two kinds drawn together", () => {
  it("fill the square evenly: a review's verdict says nothing about its delay", () => {
    const fates = createFates(5);
    const pairs = Array.from({ length: 1000 }, () => ({
      approve: fates.stream("review-first").chance(0.6),
      delay: fates.stream("review-delay").uniform(120, 600),
    }));
    const meanDelay = (approve: boolean) => {
      const ds = pairs.filter((p) => p.approve === approve).map((p) => p.delay);
      return ds.reduce((a, b) => a + b, 0) / ds.length;
    };
    expect(Math.abs(meanDelay(true) - 360)).toBeLessThan(15);
    expect(Math.abs(meanDelay(false) - 360)).toBeLessThan(15);
  });
});
