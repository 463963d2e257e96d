/**
 * The workload's fates — whether a push's CI fails, whether a review asks for changes, how long a
 * work phase lasts, how an agent watches CI — drawn so that any stretch of a step holds its share
 * of each. Every kind of fate has its own stream, a Weyl sequence frac(start + n·√p) (`FATE_PRIMES`):
 * consecutive draws of one kind spread evenly over [0, 1), so of any n first pushes in a row
 * round(0.3·n) fail, give or take one or two, where a coin per session gave ±√(n·0.3·0.7).
 *
 * Why: a step's window at the boundary holds ~20 PR creates and ~15 CI failures, each worth a
 * dozen REST reads, so independent coins moved the broker's REST spend by ±20 % between seeds
 * and between two windows of one world (21 and 31 requests per session-hour at 179 sessions on
 * one commit): the verdict near the boundary was the draw's, not the broker's
 * (docs/decisions/0030). A stream hands its values out in the order the sessions ask, so which
 * session gets which fate can differ between arms; how many of them do, in any window, does not.
 * Pure.
 */
import { deriveSeed, type Rng, rngFrom } from "./rng.js";

/**
 * Every kind of fate and its stream's step: the fractional part of √p for its own prime p. One
 * step shared by two kinds would tie their draws together (a review's verdict and its delay drawn
 * in lockstep would fall on one line of the square: approvals would all come early); square roots
 * of distinct primes are rationally independent, so pairs of kinds fill the square evenly too.
 */
const FATE_PRIMES = {
  "push-first": 2,
  "push-after-fix": 3,
  "failing-job": 5,
  "mid-life-fix-cause": 7,
  "review-first": 11,
  "review-after-fix": 13,
  "review-comments": 17,
  "review-delay": 19,
  "review-reply": 23,
  "work-length": 29,
  "fix-length": 31,
  "issue-view-comments": 37,
  "ci-watch": 41,
  "push-mid-life": 43,
  "review-mid-life": 47,
} as const;

export type FateKind = keyof typeof FATE_PRIMES;

export interface Fates {
  /** The stream of one kind of fate (the same object on every call). */
  stream(kind: FateKind): Rng;
}

/** frac(start + n·step) for n = 0, 1, 2, …: spread evenly over [0, 1) for an irrational step. */
export function weylSequence(start: number, step: number): () => number {
  let value = start - Math.floor(start);
  const stride = step - Math.floor(step);
  return () => {
    const out = value;
    value += stride;
    if (value >= 1) value -= 1;
    return out;
  };
}

export function createFates(seed: number): Fates {
  const streams = new Map<FateKind, Rng>();
  return {
    stream(kind) {
      let rng = streams.get(kind);
      if (rng === undefined) {
        const start = deriveSeed(seed, `fate-${kind}`) / 4294967296;
        rng = rngFrom(weylSequence(start, Math.sqrt(FATE_PRIMES[kind])));
        streams.set(kind, rng);
      }
      return rng;
    },
  };
}

/**
 * What is left of a phase `elapsed` of the way through it (0: all of it), its length drawn from
 * [min, max]. Part-way, the whole length is length-biased (density ∝ length), since a moment
 * picked at random falls in a long phase more often than in a short one: (1 − elapsed) × that has
 * the steady state's spread. A plain uniform length made the sessions born in review hear their
 * reviewer too soon: a step's first minutes merged up to 3× the PRs of the next ones
 * (docs/decisions/0030).
 */
export function phaseLength(
  rng: Rng,
  range: { readonly min: number; readonly max: number },
  elapsed: number,
): number {
  const { min, max } = range;
  if (!(elapsed > 0)) return rng.uniform(min, max);
  return Math.sqrt(min * min + rng.next() * (max * max - min * min)) * (1 - elapsed);
}
