/**
 * `--sessions auto`: find the largest session count that stays within budget, assuming that more
 * sessions never use less budget (usage is monotone in sessions). Grow from a start until a step
 * fails (or the ceiling is reached), shrink if the start already fails, then narrow the gap between
 * the largest pass and the smallest fail until it is within tolerance. Pure: the caller runs the
 * steps and feeds the outcomes back.
 *
 * Steps are dear (a 600 s window at 80 sessions is ~4 wall minutes), so each next count is picked
 * where the boundary is likely to be, from the share of the budget the steps used (`usage`):
 * - growing: aimed at the boundary the passes predict (`predictedBoundary`), lowered 5 % for the
 *   noise of one step's usage, not grown by a factor: the spend per session falls as a broker
 *   shares more (the broker's 78, 60, 41 and 39 points per session-hour at 5, 20, 80 and
 *   120-136 sessions), so usage is concave in N and every line through two measured points (the origin
 *   and the largest pass; the two largest passes) crosses 100 % below the true boundary. When
 *   that aim is within the tolerance of the pass, the step goes to the tolerance's edge, so a
 *   failure there closes the bracket. × `growth` only when no usage is known; never past the
 *   ceiling the profile allows while below it. A caller with time to spare may go bolder
 *   (`boldSessions`, tiered-search.ts);
 * - shrinking: the failure's usage, N ÷ usage rounded, then × 0.9 (a high estimate when usage is
 *   concave);
 * - bracketed: interpolation between the pass's and the failure's usage where it crosses 100 %,
 *   kept inside the middle of the gap (so a bad estimate still halves it); the geometric mean when
 *   the failure was not the budget's (a staleness or wait criterion says nothing about where).
 */

export interface SearchOptions {
  /** First count tried. @defaultValue 5 */
  readonly start: number;
  /** Largest count ever tried. @defaultValue 1000 */
  readonly max: number;
  /** Growth factor while every step passes and no step's usage is known. @defaultValue 4 */
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
  /** Each budget's share apart (`usage` is the larger): GraphQL and REST grow differently with N. */
  readonly usageByBudget?: { readonly graphql: number; readonly rest: number } | undefined;
}

/**
 * Aim this far inside the predicted boundary while growing: one step's usage varies by a few
 * per cent (the broker near 120 sessions spent 38.8 and 40.6 points per session-hour on two
 * commits a merge apart); the prediction itself is already low (concave usage).
 */
export const PREDICT_SAFETY = 0.95;
/**
 * A bold step's aim past the predicted boundary, from a pass at 0 % usage (scaled by 1 − usage:
 * the nearer the pass is to 100 %, the better it predicts). The prediction from 5 sessions was low
 * by ×2.0-2.2 on four commits' full runs (the broker's 78 points per session-hour at 5 sessions
 * against 39 at 120), so a step past it lands nearer the boundary and predicts it better; taken
 * only when a safe step still fits after it (tiered-search.ts). Replayed over those four runs
 * (test/unit/bench/full-search-replay.test.ts) with ±4 % noise on every step's usage, 2.0 found
 * 0.94-0.97 of the boundary at the median and 0.81-0.91 at the 10th percentile; 1.7 ended
 * 0bbac10's at 0.78 without noise, 2.2 failed 1de3df9's bold step and ended at 0.84
 * (docs/decisions/0022).
 */
export const BOLD_AIM = 2;
/** The line through the two largest passes may predict at most this much past the origin's. */
const SECANT_CAP = 1.5;
/** Aim this far inside the failure's linear estimate while shrinking. */
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

/** The passes below every failure whose usage is known, by count (the latest at a count decides it). */
function passesWithUsage(points: readonly SearchPoint[]): SearchPoint[] {
  const best = sessionsToBudget(points);
  const byCount = new Map<number, SearchPoint>();
  for (const p of points) byCount.set(p.sessions, p);
  return [...byCount.values()]
    .filter((p) => p.pass && p.sessions <= best && known(p.usage))
    .sort((a, b) => a.sessions - b.sessions);
}

/**
 * Where usage reaches 100 %, predicted from the passes: the larger of the line from the origin
 * through the largest pass (N ÷ usage) and the line through the two largest passes, the latter
 * at most ×1.5 the former (two close steps' noise can make it flat). Under concave usage both
 * are low estimates, the second the nearer. Undefined when no pass has a usage.
 */
export function predictedBoundary(points: readonly SearchPoint[]): number | undefined {
  const passes = passesWithUsage(points);
  const top = passes.at(-1);
  if (top?.usage === undefined) return undefined;
  const origin = top.sessions / top.usage;
  const below = passes.slice(0, -1).findLast((p) => (p.usage ?? 0) < (top.usage ?? 0));
  if (below?.usage === undefined || top.usage >= 1) return origin;
  const slope = (top.usage - below.usage) / (top.sessions - below.sessions);
  const secant = top.sessions + (1 - top.usage) / slope;
  return Math.max(origin, Math.min(secant, origin * SECANT_CAP));
}

/** The exponent a power law through two scouts may take: ½ (strong sharing) to 1 (none). */
const POWER_RANGE = { min: 0.5, max: 1 } as const;

/**
 * Where the first budget reaches 100 %, each budget fitted apart by a power law through the two
 * largest passes (usage = a·N^k, k within ½–1): GraphQL grows more slowly than N as the broker
 * shares more (quick's scouts on 3b4b75f: 5.4 % at 5 sessions, 48.6 % at 75, k = 0.81), REST
 * about as N (4.2 %, 35.1 %). A line from the origin through the larger pass assumes k = 1 for
 * both and put the first confirmation at 104 where the full run passed 179. Undefined without
 * two passes that say each budget's usage.
 */
export function powerLawBoundary(points: readonly SearchPoint[]): number | undefined {
  const passes = passesWithUsage(points).filter((p) => p.usageByBudget !== undefined);
  const top = passes.at(-1);
  const below = passes.at(-2);
  if (top?.usageByBudget === undefined || below?.usageByBudget === undefined) return undefined;
  let boundary = Number.POSITIVE_INFINITY;
  for (const budget of ["graphql", "rest"] as const) {
    const u2 = top.usageByBudget[budget];
    const u1 = below.usageByBudget[budget];
    if (!(u2 > 0)) continue;
    const fitted = u1 > 0 && u2 > u1 ? Math.log(u2 / u1) / Math.log(top.sessions / below.sessions) : 1;
    const k = Math.min(POWER_RANGE.max, Math.max(POWER_RANGE.min, fitted));
    boundary = Math.min(boundary, top.sessions * (1 / u2) ** (1 / k));
  }
  return Number.isFinite(boundary) ? boundary : undefined;
}

function capGrowth(candidate: number, largestPass: number, options: SearchOptions): number {
  let capped = candidate;
  if (options.ceiling !== undefined && largestPass < options.ceiling)
    capped = Math.min(capped, Math.max(largestPass + 1, Math.round(options.ceiling)));
  return Math.min(options.max, capped);
}

function growCandidate(points: readonly SearchPoint[], largestPass: number, options: SearchOptions): number {
  const predicted = predictedBoundary(points);
  if (predicted === undefined)
    return capGrowth(
      Math.max(largestPass + 1, Math.round(largestPass * options.growth)),
      largestPass,
      options,
    );
  const safe = Math.floor(predicted * PREDICT_SAFETY);
  // Within the tolerance: the tolerance's edge, where a failure closes the bracket.
  const edge = Math.max(largestPass + 1, Math.floor(largestPass * (1 + options.relativeTolerance)));
  return capGrowth(Math.max(safe, edge), largestPass, options);
}

/**
 * While every step has passed: a count past the predicted boundary (× 2 from a pass at 0 %
 * usage, less the nearer the pass is to 100 %), for a caller with
 * the time to run a safe step after it should it fail. Undefined when something failed or no
 * usage is known.
 */
export function boldSessions(points: readonly SearchPoint[], options: SearchOptions): number | undefined {
  if (points.some((p) => !p.pass)) return undefined;
  const predicted = predictedBoundary(points);
  const usage = passesWithUsage(points).at(-1)?.usage;
  if (predicted === undefined || usage === undefined) return undefined;
  // The prediction errs by the curvature between the pass and the boundary: the farther the
  // pass is from 100 %, the farther past the prediction the bold step goes.
  const aim = 1 + (BOLD_AIM - 1) * Math.max(0, 1 - usage);
  return capGrowth(Math.round(predicted * aim), sessionsToBudget(points), options);
}

function shrinkCandidate(
  fail: SearchPoint | undefined,
  smallestFail: number,
  tried: ReadonlySet<number>,
  options: SearchOptions,
): number {
  if (fail?.budgetOnly && known(fail.usage) && fail.usage > 1) {
    // First the count nearest the failure's linear estimate: direct at 5 sessions spends 183 % →
    // 2.7 → 3, which fails at ~116 % and leaves 2 as the only count to try, which a quick run
    // then confirms without scouting it (tiered-search.ts); then 0.9 × the estimate, which
    // is high under concave usage.
    const estimate = smallestFail / fail.usage;
    const near = Math.round(estimate);
    if (near >= 1 && near < smallestFail && !tried.has(near)) return near;
    const aimed = Math.floor(estimate * SHRINK_AIM);
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
    candidate = growCandidate(points, largestPass, options);
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
