/**
 * `ao-broker bench`: runs the arms one after another on the same workload, each step on a fresh
 * simulator with the same settings, searches sessions-to-budget (`--sessions auto`: bisection,
 * core/session-search.ts) or runs the given counts, then builds the scorecard (JSON, table, SVG).
 * A quick run keeps to a wall-clock budget and says where it stopped searching.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { findRedisServer, redisServerVersion, startEmbeddedRedis } from "../broker/index.js";
import { AoError } from "../common/index.js";
import type { BrokerProcessMode } from "./arms/broker-launcher.js";
import { computeCeiling } from "./core/ceiling.js";
import type { Profile } from "./core/profile-schema.js";
import {
  ARMS,
  type ArmName,
  type BenchReport,
  type Calibration,
  type StepResult,
} from "./core/report-types.js";
import {
  DEFAULT_SEARCH,
  nextSessions,
  type SearchOptions,
  type SearchPoint,
  sessionsToBudget,
} from "./core/session-search.js";
import {
  expectedStepSeconds,
  FULL_PLAN,
  QUICK_PLAN,
  type StepPlanOptions,
  stepTiming,
} from "./core/step-plan.js";
import { CostEstimator } from "./cost-estimator.js";
import { BenchErrors } from "./errors.js";
import { HttpTransport } from "./http-transport.js";
import { loadProfile } from "./load-profile.js";
import { type BenchProgress, createProgress } from "./progress.js";
import { runStep } from "./step-runner.js";

export const CALIBRATION_TARGET = 9572;
export const CALIBRATION_TOLERANCE = 0.25;

export interface BenchOptions {
  /** ≤ 5 minutes on a 2-core machine: shorter windows, a wall-clock budget. @defaultValue false */
  readonly quick?: boolean;
  /** `quiet`, `active` or a FILE. @defaultValue "active" */
  readonly profile?: string;
  /** @defaultValue all three */
  readonly arms?: readonly ArmName[];
  /** Session counts, or "auto" (search). @defaultValue "auto" */
  readonly sessions?: readonly number[] | "auto";
  /** Measured window of every step, simulated seconds. @defaultValue per step (core/step-plan.ts) */
  readonly windowS?: number | undefined;
  /** Wall-clock budget for the whole run, seconds. @defaultValue 270 with quick, none otherwise */
  readonly timeBudgetS?: number | undefined;
  /** Largest session count the search may try. @defaultValue 1000 */
  readonly maxSessions?: number;
  /** Let the simulator refuse past the prorated budget (see step-runner.ts). @defaultValue false */
  readonly enforceLimits?: boolean;
  /** Show progress on stderr. @defaultValue true */
  readonly progress?: boolean;
  /** How the run was started, for the report. */
  readonly commandLine?: string;
  /** Overrides the plan (tests use tiny windows). */
  readonly plan?: Partial<StepPlanOptions>;
  readonly search?: Partial<SearchOptions>;
  /** Called with the report so far after every step (so an interrupted run keeps what it measured). */
  readonly onStep?: (partial: BenchReport) => void;
  /** Use this Redis for the broker arm instead of starting a private one (tests). */
  readonly redisUrl?: string;
  /** Broker config overrides (JSON, config-shaped) applied before the time constants are scaled. */
  readonly brokerConfig?: Readonly<Record<string, unknown>>;
  /** Run the broker as its own process (measurable CPU and memory) or in this one. @defaultValue child when dist/cli.js exists */
  readonly brokerProcess?: BrokerProcessMode;
  /**
   * Re-run the count a search found with a longer window before believing it (quick runs: their
   * short windows hold few PR creates, the main cost driver). @defaultValue true with quick
   */
  readonly confirm?: boolean;
  /** Open every agent's broker session read-only: a broker that refuses writes (tests). */
  readonly brokerSessionsReadOnly?: boolean;
}

/** A quick run's share of its time budget per arm: the broker's search climbs highest. */
const QUICK_ARM_WEIGHT: Readonly<Record<ArmName, number>> = { direct: 1, proxy: 1, broker: 3 };
/** A confirmation measures this many times the quick window, up to CONFIRM_MAX_WINDOW_S. */
const CONFIRM_WINDOW_FACTOR = 4;
const CONFIRM_MAX_WINDOW_S = 600;

export interface BenchRun {
  readonly report: BenchReport;
}

function validate(options: BenchOptions): void {
  const bad = (flag: string, why: string) =>
    new AoError(BenchErrors.AO_ERR_BENCH_OPTIONS_INVALID, `${flag}: ${why}`, { data: { flag } });
  const arms = options.arms ?? ARMS;
  if (arms.length === 0) throw bad("--arms", "name at least one arm (direct, proxy, broker)");
  for (const arm of arms)
    if (!ARMS.includes(arm)) throw bad("--arms", `unknown arm "${arm}" (expected direct, proxy, broker)`);
  if (options.sessions !== undefined && options.sessions !== "auto") {
    if (options.sessions.length === 0) throw bad("--sessions", "give at least one count, or auto");
    for (const n of options.sessions)
      if (!Number.isInteger(n) || n < 1 || n > 10_000)
        throw bad("--sessions", `expected counts from 1 to 10000, got ${n}`);
  }
  if (options.windowS !== undefined && !(options.windowS >= 10 && options.windowS <= 86_400))
    throw bad("--window-s", `expected 10 to 86400 simulated seconds, got ${options.windowS}`);
}

export function machine(): Record<string, string | number> {
  const binary = findRedisServer();
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? "unknown",
    memoryGiB: Math.round(totalmem() / 1024 ** 3),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    redis: (binary && redisServerVersion(binary)?.replace(/^Redis server /, "")) || "not found",
  };
}

export function methodText(profile: Profile, plan: StepPlanOptions, enforceLimits: boolean): string[] {
  return [
    `Workload: profile "${profile.name}" — ${profile.description}`,
    "Each step runs one arm at one session count on a fresh simulator (same scenario, same settings, same seed).",
    `Time is compressed per step by a factor chosen from the session count alone (≤ ×${plan.maxScale}, so the machine carries ≤ ${plan.targetRequestsPerSecond} requests/s), the same for every arm: think times, poll intervals, gh's cadences, CI durations, GitHub's latency, rate-limit windows and the broker's time constants (cache freshness, batching windows, deadlines) are all divided by it.`,
    "Durations are reported in simulated time. Added wait = agent request latency − the simulator's latency. Waiting on a compressed constant (the broker's batching window, budget queue, pacing) is scaled back (× factor): exactly, when the broker reports it (x-ao-broker-wait-ms), otherwise by scaling the whole wait of every broker answer not served from its cache, which overstates its processing time; other waits (direct, proxy, broker cache hits) are processing time and reported as measured.",
    `Usage is the simulator's own accounting over the measured window (after a warm-up of ${plan.warmupS} simulated s), projected to an hour: points/h = points × 3600 / window.`,
    enforceLimits
      ? "The simulator enforces the hourly budgets prorated to the step's window; refused requests count at their documented cost."
      : "The simulator does not refuse on the primary budget: each arm's demand is measured and compared with 5,000 points and 5,000 requests per hour (secondary limits stay on, scaled).",
    "Within budget: ≤ 100 % of both budgets, no rate-limit error seen by an agent, the wait the broker imposed p95 ≤ 1 s (machine latency reported apart), staleness p99 ≤ 30 s for every kind of fact, change visibility p99 ≤ 60 s, no write dropped or refused and write latency p95 ≤ 10 s.",
  ];
}

function calibration(runs: readonly StepResult[]): Calibration {
  const at5 = runs.find((r) => r.arm === "direct" && r.sessions === 5 && r.profile === "active");
  const value = at5?.graphqlPointsPerHour ?? null;
  return {
    target: CALIBRATION_TARGET,
    tolerance: CALIBRATION_TOLERANCE,
    directPointsPerHourAt5Active: value,
    withinTolerance:
      value === null
        ? null
        : Math.abs(value - CALIBRATION_TARGET) <= CALIBRATION_TARGET * CALIBRATION_TOLERANCE,
  };
}

export async function runBench(options: BenchOptions = {}): Promise<BenchRun> {
  validate(options);
  const started = new Date();
  const wallStart = performance.now();
  const quick = options.quick ?? false;
  const profile = loadProfile(options.profile ?? "active");
  const arms = options.arms ?? ARMS;
  const plan: StepPlanOptions = {
    ...(quick ? QUICK_PLAN : FULL_PLAN),
    ...options.plan,
    fixedWindowS: options.windowS,
  };
  const search: SearchOptions = {
    ...DEFAULT_SEARCH,
    // Quick: ×2 steps, not ×4 — a step at 4× the last pass is the dearest of a quick run.
    ...(quick ? { relativeTolerance: 0.15, maxSteps: 7, growth: 2 } : {}),
    max: options.maxSessions ?? DEFAULT_SEARCH.max,
    ...options.search,
  };
  const budgetS = options.timeBudgetS ?? (quick ? 270 : Number.POSITIVE_INFINITY);
  const progress: BenchProgress = createProgress(process.stderr, options.progress ?? true);
  const transport = new HttpTransport();
  const costs = new CostEstimator();
  const redisDir = mkdtempSync(join(tmpdir(), "aob-bench-redis-"));
  const redis = arms.includes("broker")
    ? await startEmbeddedRedis({ dir: redisDir, persist: false, detached: false })
    : undefined;
  const runs: StepResult[] = [];
  const bounds: Partial<Record<ArmName, "exact" | "at-least" | "none">> = {};
  const toBudget: Partial<Record<ArmName, number>> = {};
  const notes: string[] = [];
  let stepCounter = 0;
  const ceiling = computeCeiling(profile);
  const confirm = options.confirm ?? quick;
  const weight = (arm: ArmName) => (quick ? QUICK_ARM_WEIGHT[arm] : 1);
  const buildReport = (): BenchReport => ({
    tool: "ao-broker bench",
    startedAt: started.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: machine(),
    command: options.commandLine ?? "ao-broker bench",
    options: {
      quick,
      profile: profile.name,
      arms,
      sessions: options.sessions ?? "auto",
      windowS: options.windowS ?? null,
      enforceLimits: options.enforceLimits ?? false,
      brokerConfig: options.brokerConfig ?? null,
      plan,
      search,
    },
    method: methodText(profile, plan, options.enforceLimits ?? false),
    runs,
    sessionsToBudget: toBudget,
    sessionsToBudgetBound: bounds,
    calibration: calibration(runs),
    ceiling,
    ofCeiling: Object.fromEntries(
      Object.entries(toBudget).map(([arm, n]) => [arm, Math.round((n / ceiling.sessions) * 1000) / 1000]),
    ),
    notes,
    realGh: null,
  });

  try {
    for (const [armIndex, arm] of arms.entries()) {
      const points: SearchPoint[] = [];
      const list =
        options.sessions === undefined || options.sessions === "auto" ? undefined : [...options.sessions];
      progress.armStarted(arm, list?.length ?? search.maxSteps);
      let stoppedByBudget = false;
      let brokerNoted = false;
      const confirmed = new Set<number>();
      for (;;) {
        let next = list ? list.shift() : nextSessions(points, search);
        let stepPlan = plan;
        if (next === undefined && !list && confirm) {
          // The search is done: confirm its answer on a longer window before believing it.
          const best = sessionsToBudget(points);
          const short = stepTiming(best, profile.requestsPerSessionHour, plan).measureSimS;
          // A count whose window is already the plan's longest is not confirmed (nothing longer to add).
          if (
            best > 0 &&
            short < plan.maxWindowS &&
            points.some((p) => !p.pass && p.sessions > best) &&
            !confirmed.has(best)
          ) {
            confirmed.add(best);
            next = best;
            stepPlan = {
              ...plan,
              fixedWindowS: Math.max(short, Math.min(CONFIRM_MAX_WINDOW_S, short * CONFIRM_WINDOW_FACTOR)),
            };
          }
        }
        if (next === undefined) break;
        const timing = stepTiming(next, profile.requestsPerSessionHour, stepPlan);
        const expected = expectedStepSeconds(timing, stepPlan);
        const elapsed = (performance.now() - wallStart) / 1000;
        const remaining = arms.slice(armIndex).reduce((sum, a) => sum + weight(a), 0);
        const share = ((budgetS - elapsed) * weight(arm)) / remaining;
        if (!list && points.length > 0 && expected > share) {
          stoppedByBudget = true;
          progress.note(
            `${arm}: not trying ${next} sessions (~${Math.round(expected)} s) within the time budget`,
          );
          if (stepPlan !== plan)
            notes.push(
              `${arm}: ${next} sessions were not confirmed on a ${timing.measureSimS} s window for lack of time`,
            );
          break;
        }
        progress.stepStarted(arm, next, timing.scale, expected);
        const outcome = await runStep({
          arm,
          profile,
          sessions: next,
          timing,
          transport,
          costs,
          redisUrl: options.redisUrl ?? redis?.url ?? "",
          ...(options.brokerConfig ? { brokerConfig: options.brokerConfig } : {}),
          ...(options.brokerProcess ? { brokerProcess: options.brokerProcess } : {}),
          ...(options.brokerSessionsReadOnly ? { brokerSessionsReadOnly: true } : {}),
          stepId: `${process.pid}x${stepCounter++}`,
          enforceLimits: options.enforceLimits ?? false,
          onProgress: (phase, fraction) => progress.stepProgress(phase, fraction),
        });
        runs.push(outcome.result);
        // A confirmation replaces the short window's verdict at that count.
        if (stepPlan !== plan) {
          const at = points.findIndex((p) => p.sessions === next);
          if (at >= 0) points.splice(at, 1);
          notes.push(
            `${arm}: ${next} sessions confirmed on a ${timing.measureSimS} s window: ${outcome.result.withinBudget ? "within budget" : `over (${outcome.result.reasons.join("; ")})`}`,
          );
        }
        points.push({ sessions: next, pass: outcome.result.withinBudget });
        if (outcome.broker && !brokerNoted) {
          brokerNoted = true;
          const how =
            outcome.broker.orchestrator === "broker-lifecycle"
              ? "the broker's lifecycle service polls PRs (lifecycle.watch)"
              : "this broker runs no lifecycle service, so AO's loop polls THROUGH the broker's gateway";
          const where =
            outcome.broker.process === "child"
              ? "the broker runs as its own process (ao-broker start), so its CPU and memory are measured apart"
              : "the broker runs inside the bench's process, so its CPU and memory are part of the bench's";
          notes.push(
            `broker: ${how}; ${where}; settings scaled at ×${timing.scale}: ${outcome.broker.scaled.join(", ")}`,
          );
        }
        progress.stepDone(outcome.result);
        options.onStep?.(buildReport());
      }
      const best = sessionsToBudget(points);
      toBudget[arm] = best;
      const failedAbove = points.some((p) => !p.pass && p.sessions > best);
      // Stopped for lack of time with the gap still open: the count is a floor, never the answer.
      bounds[arm] = best === 0 ? "none" : failedAbove && !stoppedByBudget ? "exact" : "at-least";
      if (stoppedByBudget && bounds[arm] === "at-least") {
        const above = Math.min(...points.filter((p) => !p.pass && p.sessions > best).map((p) => p.sessions));
        notes.push(
          `${arm}: the search stopped at ${best} sessions for lack of time${Number.isFinite(above) ? ` (${above} failed; between them untried)` : ""}; a full run goes further`,
        );
      }
    }
  } finally {
    progress.stop();
    await transport.close();
    await redis?.stop();
    rmSync(redisDir, { recursive: true, force: true });
  }
  const report = buildReport();
  return { report };
}
