/**
 * The fuzzers' seeded random source (mulberry32) with the few helpers every generator needs, so
 * any failing input can be reproduced from its seed and index.
 */
export class Rng {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.next() * list.length)] as T;
  }

  /** A length skewed towards small values, sometimes large: most bugs live at the edges. */
  length(max: number): number {
    const r = this.next();
    if (r < 0.6) return this.int(0, Math.min(16, max));
    if (r < 0.9) return this.int(0, Math.min(512, max));
    return this.int(0, max);
  }

  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = Math.floor(this.next() * 256);
    return out;
  }

  /** Printable ASCII, with a few control and non-ASCII characters mixed in on request. */
  text(n: number, wild = false): string {
    let out = "";
    for (let i = 0; i < n; i++) {
      if (wild && this.chance(0.05)) out += this.pick(WILD_CHARS);
      else out += String.fromCharCode(32 + Math.floor(this.next() * 95));
    }
    return out;
  }

  /** A random JSON value, `depth` levels deep at most. */
  json(depth = 3): unknown {
    const kind = this.int(0, depth > 0 ? 9 : 6);
    switch (kind) {
      case 0:
        return null;
      case 1:
        return this.chance(0.5);
      case 2:
        return this.pick([0, -1, 1, 1.5, -0, 2 ** 53, 1e308, -1e308, 42]);
      case 3:
        return this.text(this.length(64), true);
      case 4:
        return this.pick(["", "null", "__proto__", "constructor", "acme/widgets", "../..", "%00"]);
      case 5:
        return this.int(-5, 100_000);
      case 6:
        return this.pick(["a".repeat(10_000), "\ud800", "\u0000", "é", "😀"]);
      case 7:
      case 8:
        return Array.from({ length: this.length(8) }, () => this.json(depth - 1));
      default: {
        const out: Record<string, unknown> = {};
        for (let i = this.length(8); i > 0; i--) out[this.pick(KEYS)] = this.json(depth - 1);
        return out;
      }
    }
  }
}

const WILD_CHARS = ["\u0000", "\r", "\n", "\t", "\u007f", "é", "\u2028", "😀", "\ud800", "\\", '"', "%"];
const KEYS = [
  "query",
  "variables",
  "operationName",
  "id",
  "body",
  "__proto__",
  "constructor",
  "prototype",
  "action",
  "repository",
  "number",
  "pull_request",
  "x",
  "",
];
