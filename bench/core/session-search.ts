/**
 * `--sessions auto`: find the largest session count that stays within budget, assuming that more
 * sessions never use less budget (usage is monotone in sessions). Grow geometrically from a start
 * until a step fails (or the ceiling is reached), shrink the same way if the start already fails,
 * then bisect between the largest pass and the smallest fail until the gap is within tolerance.
 * Pure: the caller runs the steps and feeds the outcomes back.
 */

export interface SearchOptions {
  /** First count tried. @defaultValue 5 */
  readonly start: number;
  /** Largest count ever tried. @defaultValue 1000 */
  readonly max: number;
  /** Growth factor while every step passes. @defaultValue 4 */
  readonly growth: number;
  /** Stop when (fail − pass) ≤ max(1, pass × relativeTolerance). @defaultValue 0.1 */
  readonly relativeTolerance: number;
  /** Hard cap on steps per arm. @defaultValue 10 */
  readonly maxSteps: number;
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
}

/** Largest passing count below the smallest failing one; 0 when nothing passed. */
export function sessionsToBudget(points: readonly SearchPoint[]): number {
  const smallestFail = Math.min(
    ...points.filter((p) => !p.pass).map((p) => p.sessions),
    Number.POSITIVE_INFINITY,
  );
  const passes = points.filter((p) => p.pass && p.sessions < smallestFail).map((p) => p.sessions);
  return passes.length === 0 ? 0 : Math.max(...passes);
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
  let candidate: number;
  if (smallestFail === Number.POSITIVE_INFINITY) {
    if (largestPass >= options.max) return undefined;
    candidate = Math.min(options.max, Math.max(largestPass + 1, Math.round(largestPass * options.growth)));
  } else if (largestPass === 0) {
    if (smallestFail <= 1) return undefined;
    candidate = Math.max(1, Math.floor(smallestFail / options.growth));
    if (tried.has(candidate)) candidate = Math.floor(smallestFail / 2);
  } else {
    const gap = smallestFail - largestPass;
    if (gap <= Math.max(1, largestPass * options.relativeTolerance)) return undefined;
    candidate = Math.round(Math.sqrt(largestPass * smallestFail));
    if (candidate <= largestPass || candidate >= smallestFail)
      candidate = Math.floor((largestPass + smallestFail) / 2);
  }
  if (candidate < 1 || tried.has(candidate)) return undefined;
  return candidate;
}
