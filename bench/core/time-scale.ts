/**
 * Time compression. An honest benchmark needs simulated hours; a quick run has minutes. Each step
 * runs the workload as a replica whose clock goes `scale` times faster than the wall clock: every
 * duration that shapes hourly volume is divided by `scale` — the agents' think times and poll
 * intervals, gh's own polling cadences, the simulator's latency, CI durations and rate-limit
 * window, the AO loop's cycle, and the broker's time constants (cache freshness, lifecycle
 * intervals, batching windows). A simulated second is 1/scale wall seconds; everything measured
 * in wall time is reported in simulated time (× scale).
 *
 * Invariants that keep the projection from flattering anyone:
 * - `scale` depends only on the profile and the session count, never on the arm, so every arm
 *   at a given session count runs at the same compression;
 * - processing time (CPU) is NOT compressed, so wall-clock overheads come out `scale` times larger
 *   in simulated time: compression can only make an arm look slower, never faster;
 * - `scale` is bounded by the machine's request rate (targetRequestsPerSecond), so large steps
 *   run closer to real time (scale < 1 is allowed: a dilated replica).
 */

export interface TimeScaleInput {
  readonly sessions: number;
  /** Expected requests per session-hour of simulated time (the profile's load hint). */
  readonly requestsPerSessionHour: number;
  /** Wall-clock requests per second the machine should be asked to carry. */
  readonly targetRequestsPerSecond: number;
  /** @defaultValue 30 */
  readonly maxScale?: number;
  /** @defaultValue 0.25 */
  readonly minScale?: number;
}

/** The compression factor for one step: as fast as the machine's request budget allows, capped. */
export function chooseTimeScale(input: TimeScaleInput): number {
  const max = input.maxScale ?? 30;
  const min = input.minScale ?? 0.25;
  const perSecondAtScale1 = (Math.max(1, input.sessions) * Math.max(1, input.requestsPerSessionHour)) / 3600;
  const raw = input.targetRequestsPerSecond / perSecondAtScale1;
  const clamped = Math.min(max, Math.max(min, raw));
  // Two significant digits: a scale that prints exactly what was used.
  const magnitude = 10 ** (Math.floor(Math.log10(clamped)) - 1);
  // toPrecision: 66 × 0.1 is 6.6000000000000005 in binary; the scale prints as the 6.6 it is.
  return Number((Math.floor(clamped / magnitude) * magnitude).toPrecision(2));
}

export interface StepTiming {
  readonly scale: number;
  /** Simulated seconds before measuring (caches and pollers settle). */
  readonly warmupSimS: number;
  /** Simulated seconds measured. */
  readonly measureSimS: number;
  /** The simulator's rate-limit window in simulated seconds: it covers the whole step. */
  readonly budgetWindowSimS: number;
  /** Hourly limits are prorated to the window: limit × window / 3600. */
  readonly budgetFraction: number;
  readonly warmupRealMs: number;
  readonly measureRealMs: number;
}

export interface StepTimingInput {
  readonly scale: number;
  readonly warmupSimS: number;
  readonly measureSimS: number;
}

/**
 * The budget window spans warm-up + measurement + 5 % (so it never rolls over inside the step);
 * its limits are the hourly budgets prorated to its length, so "within budget" in the window means
 * the same rate as within the hourly budget, and an arm that overspends is refused exactly as
 * GitHub would refuse it.
 */
export function planStep(input: StepTimingInput): StepTiming {
  const budgetWindowSimS = (input.warmupSimS + input.measureSimS) * 1.05;
  return {
    scale: input.scale,
    warmupSimS: input.warmupSimS,
    measureSimS: input.measureSimS,
    budgetWindowSimS,
    budgetFraction: budgetWindowSimS / 3600,
    warmupRealMs: (input.warmupSimS * 1000) / input.scale,
    measureRealMs: (input.measureSimS * 1000) / input.scale,
  };
}

/** A simulated duration (ms) as wall-clock ms at this scale. */
export function toRealMs(simMs: number, scale: number): number {
  return simMs / scale;
}

/** A wall-clock duration (ms) as simulated ms at this scale. */
export function toSimMs(realMs: number, scale: number): number {
  return realMs * scale;
}

/** Amount per simulated hour, given the amount seen over `simSeconds`. */
export function perHour(amount: number, simSeconds: number): number {
  return simSeconds > 0 ? (amount * 3600) / simSeconds : 0;
}

/** An hourly limit prorated to a window, at least 1. */
export function proratedLimit(hourly: number, fraction: number): number {
  return Math.max(1, Math.floor(hourly * fraction));
}
