/**
 * Seeded randomness for workloads. Every session draws from its own stream, derived from the run
 * seed and a label ("session-7"), so the same session makes the same choices in every arm (the
 * arms are compared on the same workload) and adding a session does not reshuffle the others.
 * mulberry32: tiny, fast, good enough for workload sampling (not for anything secret).
 */

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform in [min, max). */
  uniform(min: number, max: number): number;
  /** Integer uniform in [min, max] (both inclusive). */
  int(min: number, max: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  /** A key chosen with probability proportional to its weight; undefined when all weights are 0. */
  pick<K extends string>(weights: Readonly<Partial<Record<K, number>>>): K | undefined;
}

/** FNV-1a over the label, mixed with the seed: a stable 32-bit stream id. */
export function deriveSeed(seed: number, label: string): number {
  let h = (0x811c9dc5 ^ (seed >>> 0)) >>> 0;
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  return rngFrom(() => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  });
}

/** The draws every stream offers, from its source of uniforms in [0, 1). */
export function rngFrom(next: () => number): Rng {
  return {
    next,
    uniform: (min, max) => min + (max - min) * next(),
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: <K extends string>(weights: Readonly<Partial<Record<K, number>>>) => {
      const entries = Object.entries(weights) as [K, number][];
      const total = entries.reduce((sum, [, w]) => sum + Math.max(0, w), 0);
      if (total <= 0) return undefined;
      let roll = next() * total;
      for (const [key, weight] of entries) {
        roll -= Math.max(0, weight);
        if (roll < 0) return key;
      }
      return entries[entries.length - 1]?.[0];
    },
  };
}
