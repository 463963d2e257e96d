/**
 * How long each step runs. Every step measures about the same number of session-seconds (more
 * sessions, shorter window: the sample is as large, the time per step stays bounded), within a
 * floor that still spans several poll cycles and CI runs and a ceiling; warm-up is fixed. The
 * compression comes from core/time-scale.ts. `--window-s` pins the window for every step. Pure.
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
  sessionSeconds: 3000,
  minWindowS: 120,
  // 120 for every count: a scouting step only guides (the figure comes from a confirmation's
  // 600 s window), so at ×30 a scout at 1-5 sessions costs ~8 s of wall time, not ~12; the
  // seconds saved go to the broker's confirmation (docs/decisions/0018).
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
  sessionSeconds: 18_000,
  minWindowS: 600,
  maxWindowS: 1800,
  warmupS: 300,
  targetRequestsPerSecond: REQUESTS_PER_SECOND,
  maxScale: 30,
  minScale: 0.1,
  overheadS: 3,
});

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
