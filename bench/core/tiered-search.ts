/**
 * The search a run actually follows, with the clock in it. Two tiers of steps:
 * - `confirm`: a step judged like the full run's (the full run's window for its count, at most
 *   600 s: core/step-plan.ts `confirmationPlan`); only these decide the answer;
 * - `scout`: a quick run's short-window step, cheap, that only guides: short windows hold few PR
 *   creates (the main cost driver), so they understate usage and can pass a count the full run
 *   fails (docs/decisions/0015).
 * A quick run scouts with short windows, then confirms the count found and searches on with
 * confirmation steps (up when it passes, down when it fails) while its time lasts; a full run has
 * one tier. Every step is picked so that it fits the time left, and a scouting step only when the
 * confirmation of that count would still fit after it: the confirmation always runs. When the
 * count the search wants does not fit, the largest count that does (between the bracket's ends)
 * is tried instead, so the time goes where the boundary is. Pure: costs come from the caller.
 */
import {
  boldSessions,
  bracketClosed,
  nextSessions,
  PREDICT_SAFETY,
  powerLawBoundary,
  predictedBoundary,
  type SearchOptions,
  type SearchPoint,
  sessionsToBudget,
} from "./session-search.js";

export type StepTier = "scout" | "confirm";

export interface TieredPoint extends SearchPoint {
  readonly tier: StepTier;
}

export interface TieredCosts {
  /** Expected wall seconds of a scouting step at n sessions (only called when scouting). */
  readonly scout: (sessions: number) => number;
  /** Expected wall seconds of a confirmation step at n sessions. */
  readonly confirm: (sessions: number) => number;
}

export interface TieredOptions {
  readonly search: SearchOptions;
  /** Scouting (short windows) before confirming: quick runs whose windows are below the full run's. */
  readonly scouting: boolean;
  /** Confirmation steps per arm at most. @defaultValue search.maxSteps */
  readonly maxConfirmSteps?: number;
}

export interface TieredNext {
  /** The step to run; undefined when the search is done (or out of time: `wanted` says what it wanted). */
  readonly step: { readonly sessions: number; readonly tier: StepTier } | undefined;
  /** A step the search wanted and the time left could not hold (the step returned, if any, replaces it). */
  readonly wanted?: { readonly sessions: number; readonly tier: StepTier; readonly seconds: number };
}

export interface TieredAnswer {
  /** The largest confirmed count within budget below every failure; 0 when none. */
  readonly sessions: number;
  /** exact: a failure bounds it within the tolerance; at-least: a floor; none: nothing confirmed. */
  readonly bound: "exact" | "at-least" | "none";
  /** The largest scouting pass when nothing was confirmed (never the answer: reported apart). */
  readonly unconfirmedScout: number;
}

/**
 * What a scouting step tells the search. Its budget verdict guides (usage over 100 %, or a
 * rate-limit refusal); a failure on the other criteria alone (imposed wait p95, staleness p99,
 * change visibility p99) does not: over a 120 s window those are percentiles of a few changes and
 * of the step's start-up burst, and another process's load decided them — on 2026-12-02 a loaded
 * machine (load average 10) failed the broker's scouts at 11, 25 and 122 sessions on wait and
 * visibility at 13-86 % of the budget, and the search bisected down to 7 (docs/decisions/0018).
 * The confirmation judges every criterion on the full run's window.
 */
export function scoutGuide(point: TieredPoint): TieredPoint {
  if (point.tier !== "scout" || point.pass || point.budgetOnly) return point;
  const underBudget = point.usage !== undefined && Number.isFinite(point.usage) && point.usage <= 1;
  return underBudget ? { ...point, pass: true } : point;
}

/** The points the confirmation tier searches over: its own, and the scouts' failures at other counts. */
export function confirmationPoints(points: readonly TieredPoint[]): SearchPoint[] {
  const confirmed = points.filter((p) => p.tier === "confirm");
  const counts = new Set(confirmed.map((p) => p.sessions));
  const scoutFails = points
    .map(scoutGuide)
    .filter((p) => p.tier === "scout" && !p.pass && !counts.has(p.sessions));
  return [...scoutFails, ...confirmed];
}

/** The largest count in (low, high) not tried whose cost fits `seconds`, or undefined. Costs grow with n. */
function affordable(
  low: number,
  high: number,
  seconds: number,
  cost: (n: number) => number,
  tried: ReadonlySet<number>,
): number | undefined {
  for (let n = Math.ceil(high) - 1; n > low; n--) if (!tried.has(n) && cost(n) <= seconds) return n;
  return undefined;
}

/**
 * Short windows understate usage: the same commit's broker spent 27 %, 24 % and 19 % less per
 * hour on quick's 120–150 s windows than on 600 s ones at 40, 80 and 20 sessions (docs/decisions/0015).
 * After a scouting failure, and for scouts without each budget's usage, the first confirmation
 * aims where the scouts' usage, so discounted, stays within budget. Measured when each session
 * drew its own coins (before docs/decisions/0030); with evenly spread fates the scout at 75 spent
 * more per session-hour than the confirmation at 104, so the all-pass case no longer uses it (0031).
 */
export const SHORT_WINDOW_DISCOUNT = 0.7;

/**
 * Where the scouts' usage, discounted, reaches 100 % on the line from the origin through their
 * largest pass (rounded: 2 sessions at 70.2 % is 1.99, and confirming 1 first cost the proxy a
 * 22 s step in docs/bench/quick-1de3df9-idle.json). Infinity when no usage is known.
 */
function scoutsReach(scouts: readonly SearchPoint[]): number {
  const best = sessionsToBudget(scouts);
  const usage = scouts.findLast((p) => p.sessions === best)?.usage;
  if (best === 0 || usage === undefined || !(usage > 0)) return Number.POSITIVE_INFINITY;
  return Math.max(1, Math.round((best * SHORT_WINDOW_DISCOUNT) / usage));
}

/**
 * Where the first confirmation goes. While every scout passed: 90 % of where the first budget
 * reaches 100 % on power laws fitted to each budget through the two largest scouts
 * (session-search.ts `powerLawBoundary`, `POWER_LAW_AIM`), never past the ceiling
 * (docs/decisions/0031); scouts without each budget's usage fall back to the boundary
 * `predictedBoundary` gives with their usage ÷ 0.7, lowered 5 % (docs/decisions/0024). Otherwise
 * the scouts' answer, lowered to where its usage leaves the margin.
 */
export function firstConfirmation(scouts: readonly SearchPoint[], search?: SearchOptions): number {
  const best = sessionsToBudget(scouts);
  const reach = scoutsReach(scouts);
  if (search === undefined || best === 0 || scouts.some((p) => !p.pass)) return Math.min(best, reach);
  const top = Math.min(search.max, search.ceiling ?? search.max);
  const fitted = powerLawBoundary(scouts);
  if (fitted !== undefined) return Math.max(1, Math.min(top, Math.floor(fitted * POWER_LAW_AIM)));
  const discounted = scouts.map((p) =>
    p.usage === undefined ? p : { ...p, usage: p.usage / SHORT_WINDOW_DISCOUNT },
  );
  const predicted = predictedBoundary(discounted);
  if (predicted === undefined) return best;
  return Math.max(1, Math.min(top, Math.floor(predicted * PREDICT_SAFETY)));
}

/**
 * The first confirmation's aim inside the scouts' power-law boundary: 10 %, twice
 * `PREDICT_SAFETY`, for a fit through two short steps; a quick run has time for one confirmation
 * near the boundary, and one that fails leaves it nothing (docs/decisions/0031).
 */
export const POWER_LAW_AIM = 0.9;

/** A substitute is worth a step only past the tolerance above the best pass. */
const worthIt = (n: number, best: number, search: SearchOptions): boolean =>
  best === 0 || n > best + Math.max(1, best * search.relativeTolerance);

/**
 * How far past its scout a quick run's confirmation may go: the climb's scout goes where a
 * confirmation at up to twice its count still fits after it (with steps sized by
 * session-seconds a confirmation costs ~145-155 wall s from 100 to 150 sessions, ~0.2 s per
 * session, and a scout ~0.35-0.45 s per session: a scout at ~75 and a confirmation up to ~150
 * fit the broker's ~195 s where a scout at 115 leaves room for 115 only, docs/decisions/0024).
 */
export const SCOUT_REACH = 2;

/**
 * While every scout passed, the next scout goes to the largest count whose scouting step and
 * a confirmation up to `SCOUT_REACH` × its count fit the time left (not past the ceiling): as
 * near the boundary as that allows, where its usage predicts it best (under concave usage a
 * prediction from 5 sessions was low by ×2, from 80 by a few per cent, docs/decisions/0022). Once a scout fails, the usage brackets the boundary. A
 * quick run scouts twice before confirming: at 200 requests/s, with steps sized by session-seconds,
 * the time no longer bounds the confirmation's count, so 0022's straight confirmation at the
 * largest count that fits would aim past the boundary (docs/decisions/0024).
 */
function climbTo(
  scouts: readonly SearchPoint[],
  search: SearchOptions,
  remainingS: number,
  both: (n: number) => number,
  tried: ReadonlySet<number>,
): number | undefined {
  const best = sessionsToBudget(scouts);
  if (best === 0 || scouts.some((p) => !p.pass) || scouts.length >= search.maxSteps) return undefined;
  const top = Math.min(search.max, search.ceiling ?? search.max);
  const n = affordable(best, top + 1, remainingS, both, tried);
  return n !== undefined && worthIt(n, best, search) ? n : undefined;
}

/**
 * A scout whose pass would close the bracket (a scouting failure within the tolerance above it)
 * decides nothing its confirmation will not: confirm that count instead. Direct and proxy scout
 * 5 and 3 (both over budget) and confirm 2 — 34 s of a quick run where scouting 2 as well took 40.
 */
function closesOnPass(scouts: readonly SearchPoint[], want: number, search: SearchOptions): boolean {
  const fail = Math.min(...scouts.filter((p) => !p.pass).map((p) => p.sessions), Number.POSITIVE_INFINITY);
  return (
    want > sessionsToBudget(scouts) &&
    want < fail &&
    fail - want <= Math.max(1, want * search.relativeTolerance)
  );
}

export function nextTieredStep(
  points: readonly TieredPoint[],
  options: TieredOptions,
  costs: TieredCosts,
  remainingS: number,
): TieredNext {
  const { search } = options;
  const confirmed = points.filter((p) => p.tier === "confirm");
  if (!options.scouting) return confirmStep(points, options, costs, remainingS, search.start);
  if (confirmed.length > 0) return confirmStep(points, options, costs, remainingS, 0);
  const scouts = points.filter((p) => p.tier === "scout").map(scoutGuide);
  const best = sessionsToBudget(scouts);
  const first = firstConfirmation(scouts, search);
  const want = nextSessions(scouts, search);
  // A scouting step only when a confirmation still fits after it: at its count once bracketed.
  const both = (n: number) => costs.scout(n) + costs.confirm(n);
  const tried = new Set(scouts.map((p) => p.sessions));
  // The climb keeps room for a confirmation up to ×2 its count (`SCOUT_REACH`).
  const top = Math.min(search.max, search.ceiling ?? search.max);
  const reaching = (n: number) => costs.scout(n) + costs.confirm(Math.min(top, Math.max(n, n * SCOUT_REACH)));
  const climb = climbTo(scouts, search, remainingS, reaching, tried);
  if (climb !== undefined && (want === undefined || climb > want))
    return { step: { sessions: climb, tier: "scout" } };
  if (want !== undefined && closesOnPass(scouts, want, search) && costs.confirm(want) <= remainingS)
    return { step: { sessions: want, tier: "confirm" } };
  if (want === undefined) return confirmStep(points, options, costs, remainingS, first);
  const fail = Math.min(...scouts.filter((p) => !p.pass).map((p) => p.sessions), Number.POSITIVE_INFINITY);
  // Bracketed, the confirmation goes no higher than the scout; growing, it may reach past it.
  const scoutCost = fail === Number.POSITIVE_INFINITY ? reaching : both;
  if (scoutCost(want) <= remainingS) return { step: { sessions: want, tier: "scout" } };
  const wanted = { sessions: want, tier: "scout" as const, seconds: scoutCost(want) };
  const instead = affordable(best, Math.min(want + 1, fail), remainingS, scoutCost, tried);
  if (instead !== undefined && worthIt(instead, best, search))
    return { step: { sessions: instead, tier: "scout" }, wanted };
  // No scouting step fits with its confirmation: confirm what was found.
  const next = confirmStep(points, options, costs, remainingS, first);
  return next.wanted || next.step ? next : { ...next, wanted };
}

function confirmStep(
  points: readonly TieredPoint[],
  options: TieredOptions,
  costs: TieredCosts,
  remainingS: number,
  firstAt: number,
): TieredNext {
  const own = points.filter((p) => p.tier === "confirm");
  if (own.length >= (options.maxConfirmSteps ?? options.search.maxSteps)) return { step: undefined };
  const searchPoints = confirmationPoints(points);
  let want: number | undefined;
  if (own.length > 0)
    want = nextSessions(searchPoints, { ...options.search, maxSteps: Number.POSITIVE_INFINITY });
  else if (firstAt >= 1) want = Math.min(options.search.max, Math.round(firstAt));
  if (want === undefined) return { step: undefined };
  const seconds = costs.confirm(want);
  if (seconds <= remainingS) {
    const bold = boldStep(searchPoints, own, options.search, want, remainingS, costs.confirm);
    return { step: { sessions: bold ?? want, tier: "confirm" } };
  }
  const wanted = { sessions: want, tier: "confirm" as const, seconds };
  const best = sessionsToBudget(own.length === 0 ? [] : searchPoints);
  const tried = new Set(own.map((p) => p.sessions));
  // Below the count wanted, above the best confirmed pass: the largest that fits.
  const instead = affordable(best, want, remainingS, costs.confirm, tried);
  if (instead !== undefined && worthIt(instead, best, options.search))
    return { step: { sessions: instead, tier: "confirm" }, wanted };
  return { step: undefined, wanted };
}

/**
 * While every step has passed, a step past the predicted boundary instead of the safe one, when
 * the safe one still fits after it (so a failure there costs a step, not the answer): from the
 * broker's full-run steps of 1de3df9 replayed, 5 → 124 in its 822 s instead of 5 → 61 → 104
 * (and, as recorded, 5 → 20 → 80 → 136 failing): the prediction from 5 sessions is low by ×2
 * (docs/decisions/0022).
 */
function boldStep(
  searchPoints: readonly SearchPoint[],
  own: readonly TieredPoint[],
  search: SearchOptions,
  safe: number,
  remainingS: number,
  cost: (n: number) => number,
): number | undefined {
  if (own.length === 0) return undefined;
  const bold = boldSessions(searchPoints, search);
  if (bold === undefined || bold <= safe) return undefined;
  const tried = new Set(own.map((p) => p.sessions));
  // Held back for the step after a failure: the safe count, and at least one worth a step.
  const best = sessionsToBudget(searchPoints);
  const reserve = Math.max(safe, Math.floor(best + Math.max(1, best * search.relativeTolerance)) + 1);
  return affordable(safe, bold + 1, remainingS - cost(reserve), cost, tried);
}

export function tieredAnswer(points: readonly TieredPoint[], options: TieredOptions): TieredAnswer {
  const own = points.filter((p) => p.tier === "confirm");
  const searchPoints = confirmationPoints(points);
  const sessions = own.length === 0 ? 0 : sessionsToBudget(searchPoints);
  const bound = sessions === 0 ? "none" : bracketClosed(searchPoints, options.search) ? "exact" : "at-least";
  const unconfirmedScout =
    sessions === 0 && options.scouting
      ? sessionsToBudget(points.filter((p) => p.tier === "scout").map(scoutGuide))
      : 0;
  return { sessions, bound, unconfirmedScout };
}
