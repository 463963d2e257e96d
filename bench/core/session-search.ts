/**
 * `--sessions auto`: find the largest session count that stays within budget, assuming that more
 * sessions never use less budget (usage is monotone in sessions). Grow from a start until a step
 * fails (or the ceiling is reached), shrink if the start already fails, then narrow the gap between
 * the largest pass and the smallest fail until it is within tolerance. Pure: the caller runs the
 * steps and feeds the outcomes back.
 *
 * Steps are dear (a 600 s window at 80 sessions is ~4 wall minutes), so each next count is picked
 * where the boundary is likely to be, from the share of the budget the steps used (`usage`):
 * - growing: the largest pass's usage, extrapolated linearly (usage per session falls as a broker
 *   shares more, so N ÷ usage is a low estimate of the boundary), aimed 10 % past it so the next
 *   step brackets the boundary, within ×1.25 and × `growth`, and not past the ceiling the profile
 *   allows while below it;
 * - shrinking: the failure's usage, N ÷ usage × 0.9 (a high estimate when usage is concave);
 * - bracketed: interpolation between the pass's and the failure's usage where it crosses 100 %,
 *   kept inside the middle of the gap (so a bad estimate still halves it); the geometric mean when
 *   the failure was not the budget's (a staleness or wait criterion says nothing about where).
 */

export interface SearchOptions {
  /** First count tried. @defaultValue 5 */
  readonly start: number;
  /** Largest count ever tried. @defaultValue 1000 */
  readonly max: number;
  /** Largest growth factor while every step passes. @defaultValue 4 */
  readonly growth: number;
  /** Stop when (fail − pass) ≤ max(1, pass × relativeTolerance). @defaultValue 0.1 */
  readonly relativeTolerance: number;
  /** Hard cap on steps per arm. @defaultValue 10 */
  readonly maxSteps: number;
  /**
   * The most sessions any broker could carry (core/ceiling.ts): growth stops there before going
   * past it (a count above it can still be tried once it passed). @defaultValue none
   */
  readonly ceiling?: number | undefined;
}

export const DEFAULT_SEARCH: SearchOptions = Object.freeze({
  start: 5,
  max: 1000,
  growth: 4,
  relativeTolerance: 0.1,
  maxSteps: 10,
});

export interface SearchPoint {
  readonly sessions: number;
  readonly pass: boolean;
  /**
   * The share of the budgets the step used: max(GraphQL points/h ÷ 5,000, REST requests/h ÷
   * 5,000). Unknown: the search falls back to growth factors and geometric means.
   */
  readonly usage?: number | undefined;
  /** The step failed on the budgets alone (so its usage says where the boundary is). */
  readonly budgetOnly?: boolean | undefined;
}

/** Aim this far past a linear estimate while growing (the estimate is low), this far inside while shrinking. */
const GROW_AIM = 1.1;
const SHRINK_AIM = 0.9;
/** A bracketed guess stays within this share of the gap from either end. */
const GAP_GUARD = 0.2;

/** Largest passing count below the smallest failing one; 0 when nothing passed. */
export function sessionsToBudget(points: readonly SearchPoint[]): number {
  const smallestFail = Math.min(
    ...points.filter((p) => !p.pass).map((p) => p.sessions),
    Number.POSITIVE_INFINITY,
  );
  const passes = points.filter((p) => p.pass && p.sessions < smallestFail).map((p) => p.sessions);
  return passes.length === 0 ? 0 : Math.max(...passes);
}

const known = (u: number | undefined): u is number => u !== undefined && Number.isFinite(u) && u > 0;

function growCandidate(pass: SearchPoint | undefined, largestPass: number, options: SearchOptions): number {
  let candidate = Math.max(largestPass + 1, Math.round(largestPass * options.growth));
  if (known(pass?.usage)) {
    const aimed = Math.round((largestPass / pass.usage) * GROW_AIM);
    const floor = Math.max(largestPass + 1, Math.ceil(largestPass * 1.25));
    candidate = Math.min(candidate, Math.max(floor, aimed));
  }
  if (options.ceiling !== undefined && largestPass < options.ceiling)
    candidate = Math.min(candidate, Math.max(largestPass + 1, Math.round(options.ceiling)));
  return Math.min(options.max, candidate);
}

function shrinkCandidate(
  fail: SearchPoint | undefined,
  smallestFail: number,
  tried: ReadonlySet<number>,
  options: SearchOptions,
): number {
  if (fail?.budgetOnly && known(fail.usage) && fail.usage > 1) {
    const aimed = Math.floor((smallestFail / fail.usage) * SHRINK_AIM);
    const candidate = Math.max(1, Math.min(smallestFail - 1, aimed));
    if (!tried.has(candidate)) return candidate;
  }
  const candidate = Math.max(1, Math.floor(smallestFail / options.growth));
  return tried.has(candidate) ? Math.floor(smallestFail / 2) : candidate;
}

function bracketCandidate(
  pass: SearchPoint | undefined,
  fail: SearchPoint | undefined,
  lo: number,
  hi: number,
) {
  const gap = hi - lo;
  let candidate = Math.round(Math.sqrt(lo * hi));
  if (fail?.budgetOnly && known(fail.usage) && fail.usage > 1 && known(pass?.usage) && pass.usage < 1) {
    const crossing = lo + ((1 - pass.usage) / (fail.usage - pass.usage)) * gap;
    const guarded = Math.min(hi - GAP_GUARD * gap, Math.max(lo + GAP_GUARD * gap, crossing));
    candidate = Math.round(guarded);
  }
  if (candidate <= lo || candidate >= hi) candidate = Math.floor((lo + hi) / 2);
  return candidate;
}

/** The next count to try, or undefined when the search is done. */
export function nextSessions(
  points: readonly SearchPoint[],
  options: SearchOptions = DEFAULT_SEARCH,
): number | undefined {
  if (points.length >= options.maxSteps) return undefined;
  if (points.length === 0) return Math.max(1, Math.min(options.max, Math.round(options.start)));
  const tried = new Set(points.map((p) => p.sessions));
  const smallestFail = Math.min(
    ...points.filter((p) => !p.pass).map((p) => p.sessions),
    Number.POSITIVE_INFINITY,
  );
  const largestPass = sessionsToBudget(points);
  // The latest measurement at a count decides it (a confirmation replaces a scouting step).
  const at = (n: number) => points.findLast((p) => p.sessions === n);
  let candidate: number;
  if (smallestFail === Number.POSITIVE_INFINITY) {
    if (largestPass >= options.max) return undefined;
    candidate = growCandidate(at(largestPass), largestPass, options);
  } else if (largestPass === 0) {
    if (smallestFail <= 1) return undefined;
    candidate = shrinkCandidate(at(smallestFail), smallestFail, tried, options);
  } else {
    const gap = smallestFail - largestPass;
    if (gap <= Math.max(1, largestPass * options.relativeTolerance)) return undefined;
    candidate = bracketCandidate(at(largestPass), at(smallestFail), largestPass, smallestFail);
  }
  if (candidate < 1 || tried.has(candidate)) return undefined;
  return candidate;
}

/** Whether a search's answer is bounded by a failure within its tolerance. */
export function bracketClosed(points: readonly SearchPoint[], options: SearchOptions): boolean {
  const best = sessionsToBudget(points);
  const above = points.filter((p) => !p.pass && p.sessions > best).map((p) => p.sessions);
  if (best === 0 || above.length === 0) return false;
  return Math.min(...above) - best <= Math.max(1, best * options.relativeTolerance);
}
