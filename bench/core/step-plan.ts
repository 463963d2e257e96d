/**
 * How long each step runs. Every step measures about the same number of session-seconds (more
 * sessions, shorter window: the sample is as large, and at a compression that keeps the machine at
 * 200 requests/s a step's wall time is about the same whatever the count), within a floor that
 * still spans several staleness bounds, guard periods and PR creates, and a ceiling; warm-up is
 * fixed. Quick confirms a count with the full run's window (sessionSeconds and floor the same,
 * the ceiling 300 s: they agree from 120 sessions up, docs/decisions/0024, 0031). The compression comes
 * from core/time-scale.ts. `--window-s` pins the window for every step. Pure.
 */
import { chooseTimeScale, planStep, type StepTiming } from "./time-scale.js";

export interface StepPlanOptions {
  /** Session-seconds each step measures. */
  readonly sessionSeconds: number;
  readonly minWindowS: number;
  readonly maxWindowS: number;
  readonly warmupS: number;
  /** Overrides the window of every step. */
  readonly fixedWindowS?: number | undefined;
  readonly targetRequestsPerSecond: number;
  readonly maxScale: number;
  readonly minScale: number;
  /** Wall seconds a step costs beyond its window (start-up, tear-down). */
  readonly overheadS: number;
}

/** Agent requests per wall second a step's compression aims at, quick and full alike (`--requests-per-s`). */
export const REQUESTS_PER_SECOND = 200;

export const QUICK_PLAN: StepPlanOptions = Object.freeze({
  // A scout only guides (the figure comes from a confirmation): 120 s up to 50 sessions (at ×30
  // a scout at 1-5 sessions costs ~8 s of wall time, docs/decisions/0018), then 6,000
  // session-seconds down to 60 s, so a scout near the broker's boundary (~100-120 sessions)
  // costs ~45-50 s, not ~75 (docs/decisions/0024).
  sessionSeconds: 6000,
  minWindowS: 60,
  maxWindowS: 120,
  warmupS: 60,
  // The same for quick and full (decision 0015: one compression per count). `--requests-per-s`
  // overrides it; 400 was measured and not made the default (docs/decisions/0018: at ×6.1 the
  // broker's 600 s confirmation at 98 sessions spent 5,040 points/h, where at ×2.4-3.7 the full run
  // spent 41-45 points per session-hour up to 123).
  targetRequestsPerSecond: REQUESTS_PER_SECOND,
  // As the full run's: at ×60 the 1 s wait criterion was ~17 ms of wall time, which another
  // process's load decided (docs/decisions/0006); the same compression per count also makes
  // quick and full measure each count alike.
  maxScale: 30,
  minScale: 0.25,
  overheadS: 3,
});

export const FULL_PLAN: StepPlanOptions = Object.freeze({
  // What a 600 s window at 60 sessions holds; at 120 sessions 300 s still holds ~15 PR creates,
  // and a step's wall time at 200 requests/s is ~120 s + the warm-up's whatever the count
  // (docs/decisions/0024, which amends 0015 and 0018: 18,000 and a 600 s floor made it ~2.2·N s).
  sessionSeconds: 36_000,
  // 8× the 30 s staleness bound, several guard periods and CI runs.
  minWindowS: 240,
  maxWindowS: 1800,
  warmupS: 300,
  targetRequestsPerSecond: REQUESTS_PER_SECOND,
  maxScale: 30,
  minScale: 0.1,
  overheadS: 3,
});

/**
 * A quick run's confirmation: the full run's window at each count (its session-seconds and floor),
 * its ceiling 300 s (direct and proxy confirm at 2 sessions, each ~22 s on 600 s, ~12 s on 300,
 * and the broker's confirmation near the boundary needs those 20 s: docs/decisions/0031), quick's
 * warm-up and compression. Equal to the full run's window from 120 sessions up.
 */
export const QUICK_CONFIRM_MAX_WINDOW_S = 300;

export function confirmationPlan(
  scouts: StepPlanOptions,
  full: StepPlanOptions = FULL_PLAN,
): StepPlanOptions {
  return {
    ...scouts,
    sessionSeconds: full.sessionSeconds,
    minWindowS: full.minWindowS,
    maxWindowS: Math.max(full.minWindowS, QUICK_CONFIRM_MAX_WINDOW_S),
  };
}

export function stepTiming(
  sessions: number,
  requestsPerSessionHour: number,
  plan: StepPlanOptions,
): StepTiming {
  const window =
    plan.fixedWindowS ??
    Math.min(plan.maxWindowS, Math.max(plan.minWindowS, plan.sessionSeconds / Math.max(1, sessions)));
  const scale = chooseTimeScale({
    sessions,
    requestsPerSessionHour,
    targetRequestsPerSecond: plan.targetRequestsPerSecond,
    maxScale: plan.maxScale,
    minScale: plan.minScale,
  });
  return planStep({ scale, warmupSimS: plan.warmupS, measureSimS: window });
}

/** Wall seconds a step is expected to take. */
export function expectedStepSeconds(timing: StepTiming, plan: StepPlanOptions): number {
  return (timing.warmupRealMs + timing.measureRealMs) / 1000 + plan.overheadS;
}
