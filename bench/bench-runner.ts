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
import { DEFAULT_SEARCH, type SearchOptions } from "./core/session-search.js";
import {
  confirmationPlan,
  expectedStepSeconds,
  FULL_PLAN,
  QUICK_PLAN,
  type StepPlanOptions,
  stepTiming,
} from "./core/step-plan.js";
import {
  confirmationPoints,
  nextTieredStep,
  type StepTier,
  type TieredCosts,
  type TieredOptions,
  type TieredPoint,
  tieredAnswer,
} from "./core/tiered-search.js";
import { budgetUsage, isBudgetReason, usageByBudget } from "./core/verdict.js";
import { CostEstimator } from "./cost-estimator.js";
import { BenchErrors } from "./errors.js";
import { HttpTransport } from "./http-transport.js";
import { loadProfile } from "./load-profile.js";
import { guardProcess } from "./process-guard.js";
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
  /** Broker arm: the simulator delivers webhooks to the broker's gateway (decision 0021). @defaultValue false */
  readonly webhooks?: boolean;
  /**
   * Quick runs: scout with short windows, and take the answer only from steps judged like the full
   * run's (a `confirmWindowS` window), with their own share of the time budget (docs/decisions/0015).
   * Off: a quick run's answer comes from its short windows, as before. @defaultValue true with quick
   */
  readonly confirm?: boolean;
  /**
   * Pins the window of a confirmation step, simulated seconds. @defaultValue sized like the full
   * run's: 36,000 session-seconds within 240-600 s (core/step-plan.ts `confirmationPlan`; tests pin less)
   */
  readonly confirmWindowS?: number;
  /** Open every agent's broker session read-only: a broker that refuses writes (tests). */
  readonly brokerSessionsReadOnly?: boolean;
}

/**
 * Each arm's share of the time budget: direct and proxy find ~2 in about a minute of a quick run
 * (three scouting steps and a confirmation at ×30); the broker's search climbs highest, and its
 * confirmation costs ~150 wall seconds from 100 to 150 sessions (docs/decisions/0024).
 */
const ARM_WEIGHT: Readonly<Record<ArmName, number>> = { direct: 1, proxy: 1, broker: 2 };
/** The quick run's wall-clock budget: `npm start` stays within 5 minutes with start-up and tear-down. */
export const QUICK_TIME_BUDGET_S = 275;

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
    // Quick: scouting steps are cheap and only guide; the time left picks the counts (tiered-search.ts).
    ...(quick ? { relativeTolerance: 0.15, maxSteps: 7 } : {}),
    max: options.maxSessions ?? DEFAULT_SEARCH.max,
    ...options.search,
  };
  const budgetS = options.timeBudgetS ?? (quick ? QUICK_TIME_BUDGET_S : Number.POSITIVE_INFINITY);
  const progress: BenchProgress = createProgress(process.stderr, options.progress ?? true);
  const transport = new HttpTransport();
  const costEstimator = new CostEstimator();
  const redisDir = mkdtempSync(join(tmpdir(), "aob-bench-redis-"));
  const redis = arms.includes("broker")
    ? await startEmbeddedRedis({ dir: redisDir, persist: false, detached: false })
    : undefined;
  // On SIGINT/SIGTERM the finally below never runs: the guard removes the directory too.
  const unguardRedis = redis
    ? guardProcess("the private redis-server", redis.pid, async () => {
        await redis.stop();
        rmSync(redisDir, { recursive: true, force: true });
      })
    : undefined;
  const runs: StepResult[] = [];
  const bounds: Partial<Record<ArmName, "exact" | "at-least" | "none">> = {};
  const toBudget: Partial<Record<ArmName, number>> = {};
  const notes: string[] = [];
  let stepCounter = 0;
  const ceiling = computeCeiling(profile);
  const confirm = options.confirm ?? quick;
  const weight = (arm: ArmName) => ARM_WEIGHT[arm];
  // The steps that decide the answer: the plan's own (a full run), or, for a quick run that
  // confirms, the quick plan with the full run's window for the count (docs/decisions/0015, 0024).
  // Sized by session-seconds like the full run's, unless a test pins it (docs/decisions/0024).
  const confirmPlan: StepPlanOptions =
    options.confirmWindowS !== undefined
      ? { ...plan, fixedWindowS: options.confirmWindowS }
      : { ...confirmationPlan(plan, FULL_PLAN), fixedWindowS: undefined };
  const shortest = plan.fixedWindowS ?? plan.minWindowS;
  const scouting = confirm && shortest < (confirmPlan.fixedWindowS ?? confirmPlan.minWindowS);
  const decidingPlan: StepPlanOptions = scouting ? confirmPlan : plan;
  const stepSeconds = (sessions: number, p: StepPlanOptions) =>
    expectedStepSeconds(stepTiming(sessions, profile.requestsPerSessionHour, p), p);
  const costs: TieredCosts = {
    scout: (n) => stepSeconds(n, plan),
    confirm: (n) => stepSeconds(n, decidingPlan),
  };
  const tiers: TieredOptions = {
    search: { ...search, ceiling: search.ceiling ?? ceiling.sessions },
    scouting,
    maxConfirmSteps: scouting ? 4 : search.maxSteps,
  };
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
      confirmPlan: scouting ? decidingPlan : null,
      search,
      timeBudgetS: Number.isFinite(budgetS) ? budgetS : null,
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
      const points: TieredPoint[] = [];
      const list =
        options.sessions === undefined || options.sessions === "auto" ? undefined : [...options.sessions];
      progress.armStarted(arm, list?.length ?? search.maxSteps);
      let brokerNoted = false;
      // This arm's share of the time left (weighted): its steps, scouting and confirmation, fit in it.
      const armElapsed = (performance.now() - wallStart) / 1000;
      const weightsLeft = arms.slice(armIndex).reduce((sum, a) => sum + weight(a), 0);
      const armDeadline = armElapsed + ((budgetS - armElapsed) * weight(arm)) / weightsLeft;
      let stoppedFor: { sessions: number; tier: StepTier; seconds: number } | undefined;
      for (;;) {
        let next: { sessions: number; tier: StepTier } | undefined;
        if (list) {
          const n = list.shift();
          next = n === undefined ? undefined : { sessions: n, tier: "confirm" };
        } else {
          const remaining = armDeadline - (performance.now() - wallStart) / 1000;
          const pick = nextTieredStep(points, tiers, costs, remaining);
          next = pick.step;
          if (pick.wanted && !pick.step) {
            stoppedFor = pick.wanted;
            progress.note(
              `${arm}: not trying ${pick.wanted.sessions} sessions (${pick.wanted.tier}, ~${Math.round(pick.wanted.seconds)} s) within the time budget`,
            );
          } else if (pick.wanted && pick.step)
            progress.note(
              `${arm}: ${pick.step.sessions} sessions instead of ${pick.wanted.sessions} (~${Math.round(pick.wanted.seconds)} s would not fit the time budget)`,
            );
        }
        if (next === undefined) break;
        const stepPlan = next.tier === "scout" ? plan : decidingPlan;
        const timing = stepTiming(next.sessions, profile.requestsPerSessionHour, stepPlan);
        const expected = expectedStepSeconds(timing, stepPlan);
        progress.stepStarted(arm, next.sessions, timing.scale, expected);
        const outcome = await runStep({
          arm,
          profile,
          sessions: next.sessions,
          timing,
          transport,
          costs: costEstimator,
          redisUrl: options.redisUrl ?? redis?.url ?? "",
          redisPid: options.redisUrl ? undefined : redis?.pid,
          ...(options.brokerConfig ? { brokerConfig: options.brokerConfig } : {}),
          ...(options.brokerProcess ? { brokerProcess: options.brokerProcess } : {}),
          ...(options.webhooks ? { webhooks: true } : {}),
          ...(options.brokerSessionsReadOnly ? { brokerSessionsReadOnly: true } : {}),
          stepId: `${process.pid}x${stepCounter++}`,
          enforceLimits: options.enforceLimits ?? false,
          onProgress: (phase, fraction) => progress.stepProgress(phase, fraction),
        });
        const result: StepResult = { ...outcome.result, tier: next.tier };
        runs.push(result);
        if (next.tier === "confirm" && tiers.scouting)
          notes.push(
            `${arm}: ${next.sessions} sessions on a ${timing.measureSimS} s window (a confirmation): ${result.withinBudget ? "within budget" : `over (${result.reasons.join("; ")})`}`,
          );
        points.push({
          sessions: next.sessions,
          pass: result.withinBudget,
          usage: budgetUsage(result),
          usageByBudget: usageByBudget(result),
          budgetOnly: !result.withinBudget && result.reasons.every(isBudgetReason),
          tier: next.tier,
        });
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
      const answer = tieredAnswer(points, list ? { ...tiers, scouting: false } : tiers);
      toBudget[arm] = answer.sessions;
      bounds[arm] = answer.bound;
      if (answer.unconfirmedScout > 0)
        notes.push(
          `${arm}: ${answer.unconfirmedScout} sessions passed on short windows, but no step judged like the full run's confirmed a count in the time budget; the figure is not reported`,
        );
      if (stoppedFor && answer.bound === "at-least") {
        const above = Math.min(
          ...confirmationPoints(points)
            .filter((p) => !p.pass && p.sessions > answer.sessions)
            .map((p) => p.sessions),
        );
        notes.push(
          `${arm}: the search stopped at ${answer.sessions} sessions for lack of time${Number.isFinite(above) ? ` (${above} failed; between them untried)` : ""}; it wanted ${stoppedFor.sessions} next (~${Math.round(stoppedFor.seconds)} s); a longer --time-budget-s goes further`,
        );
      }
    }
  } finally {
    progress.stop();
    await transport.close();
    await redis?.stop();
    unguardRedis?.();
    rmSync(redisDir, { recursive: true, force: true });
  }
  const report = buildReport();
  return { report };
}
