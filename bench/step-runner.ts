/**
 * Runs one step: one arm at one session count, on a fresh simulator built from the same scenario
 * with the same settings as every other step (limits prorated to the step's window, latency and
 * windows scaled, see core/time-scale.ts). Sessions start at once, spread over the phases of an
 * agent's life (steady state from the start); a merged session is replaced by a new one on a new
 * issue, so the count stays constant. Warm-up is discarded; the window is measured from the
 * simulator's own accounting (what GitHub charged) and the agents' side (waits, errors, staleness).
 */
import { randomBytes } from "node:crypto";
import { setMaxListeners } from "node:events";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AoError } from "../common/index.js";
import { type RunningSimulator, type SimStats, startSimulator } from "../github-sim/index.js";
import { AgentSession } from "./agent-session.js";
import type { ArmEnv } from "./arms/arm-env.js";
import type { ArmInstance, SessionSpec } from "./arms/arm-types.js";
import { type BrokerArmInfo, startBrokerArm } from "./arms/broker-arm.js";
import type { BrokerProcessMode } from "./arms/broker-launcher.js";
import { startTokenArm } from "./arms/token-arm.js";
import { counterBreakdown, parseCounterSamples } from "./core/answer-breakdown.js";
import { createFates } from "./core/fates.js";
import { initialPhases } from "./core/initial-phases.js";
import type { Profile } from "./core/profile-schema.js";
import type { ArmName, StepResult } from "./core/report-types.js";
import { restOperationSplit } from "./core/rest-split.js";
import { createRng, deriveSeed } from "./core/rng.js";
import { perHour, proratedLimit, type StepTiming } from "./core/time-scale.js";
import { type BudgetCriteria, DEFAULT_CRITERIA, judgeStep } from "./core/verdict.js";
import type { CostEstimator } from "./cost-estimator.js";
import { BenchErrors } from "./errors.js";
import type { HttpTransport } from "./http-transport.js";
import { guardProcess } from "./process-guard.js";
import { readProcess, SelfSampler } from "./resource-sampler.js";
import { StepClock } from "./step-clock.js";
import { brokerScaledWait, StepRecorder } from "./step-recorder.js";
import { TruthTracker } from "./truth-tracker.js";
import { BENCH_OWNER, BENCH_REPO, benchScenario, WorldDriver } from "./world-driver.js";

export type StepPhase = "starting" | "warmup" | "measure" | "stopping";

export interface StepInput {
  readonly arm: ArmName;
  readonly profile: Profile;
  readonly sessions: number;
  readonly timing: StepTiming;
  readonly transport: HttpTransport;
  readonly costs: CostEstimator;
  /** A private Redis for the broker arm. */
  readonly redisUrl: string;
  /** The private redis-server's PID, so its CPU over the window is reported (broker arm). */
  readonly redisPid?: number | undefined;
  /** Unique per step (Redis prefixes, directories). */
  readonly stepId: string;
  readonly criteria?: BudgetCriteria;
  /**
   * Let the simulator refuse requests past the prorated hourly budget (GitHub's behaviour). Off by
   * default: the scorecard reports what each arm ASKS for, and gh stops at the first refusal, so a
   * refused arm's demand would be understated. @defaultValue false
   */
  readonly enforceLimits?: boolean;
  /** Broker config overrides applied before scaling (broker arm only). */
  readonly brokerConfig?: Readonly<Record<string, unknown>>;
  readonly brokerProcess?: BrokerProcessMode;
  /**
   * The simulator delivers webhooks to the broker's gateway (broker arm; decision 0021): the
   * broker gets a fresh secret and the simulator signs with it. @defaultValue false
   */
  readonly webhooks?: boolean;
  /** Open every agent's broker session read-only (tests: a broker that refuses writes). */
  readonly brokerSessionsReadOnly?: boolean;
  readonly onProgress?: (phase: StepPhase, fraction: number) => void;
}

export interface StepOutcome {
  readonly result: StepResult;
  readonly broker: BrokerArmInfo | undefined;
}

const HOURLY = 5000;
/** Limits no arm can reach: demand is measured, then compared with the budget (see enforceLimits). */
const UNLIMITED = 1_000_000_000;

function delta(after: SimStats, before: SimStats) {
  const byOperation: Record<string, number> = {};
  for (const [op, n] of Object.entries(after.requests.byOperation)) {
    const d = n - (before.requests.byOperation[op] ?? 0);
    if (d > 0) byOperation[op] = d;
  }
  const notModifiedByOperation: Record<string, number> = {};
  for (const [op, n] of Object.entries(after.requests.notModifiedByOperation ?? {})) {
    const d = n - (before.requests.notModifiedByOperation?.[op] ?? 0);
    if (d > 0) notModifiedByOperation[op] = d;
  }
  return {
    restByOperation: restOperationSplit(byOperation, notModifiedByOperation),
    graphqlPoints: after.graphqlPoints - before.graphqlPoints,
    restCharged: after.restCharged - before.restCharged,
    requests: after.requests.total - before.requests.total,
    notModified: after.requests.notModified - before.requests.notModified,
    secondaryLimited: after.requests.secondaryLimited - before.requests.secondaryLimited,
    byOperation,
  };
}

/** Open issues in the step's world: one per session and its likely replacements. */
function issueCount(input: StepInput): number {
  const totalSimS = input.timing.warmupSimS + input.timing.measureSimS;
  return Math.min(20_000, input.sessions * (2 + Math.ceil(totalSimS / 900)) + 10);
}

function webhookStats(sim: RunningSimulator) {
  const stats = sim.webhookStats();
  if (!stats) return {};
  const { delivered, retried, failed, dropped } = stats;
  return { webhooks: { delivered, retried, failed, dropped } };
}

async function startSim(input: StepInput): Promise<RunningSimulator> {
  const { timing, profile } = input;
  const k = timing.scale;
  const issues = issueCount(input);
  return startSimulator({
    port: 0,
    token: `ghp_bench${input.stepId}`,
    scenario: benchScenario(issues),
    latencyMs: profile.simulator.latencyMs / k,
    jitterMs: 0,
    limits: input.enforceLimits
      ? {
          graphql: proratedLimit(HOURLY, timing.budgetFraction),
          core: proratedLimit(HOURLY, timing.budgetFraction),
        }
      : { graphql: UNLIMITED, core: UNLIMITED },
    windowSeconds: timing.budgetWindowSimS / k,
    // Per-minute and per-hour secondary limits are rates: scale them with time. Concurrency is not.
    secondary: {
      restPointsPerMinute: Math.max(1, Math.round(900 * k)),
      graphqlPointsPerMinute: Math.max(1, Math.round(2000 * k)),
      contentCreationPerMinute: Math.max(1, Math.round(80 * k)),
      contentCreationPerHour: Math.max(1, Math.round(500 * k)),
    },
  });
}

function waitReal(ms: number, onTick: (fraction: number) => void): Promise<void> {
  return new Promise((resolve) => {
    const started = performance.now();
    const tick = setInterval(() => onTick(Math.min(1, (performance.now() - started) / ms)), 250);
    setTimeout(() => {
      clearInterval(tick);
      onTick(1);
      resolve();
    }, ms);
  });
}

export async function runStep(input: StepInput): Promise<StepOutcome> {
  const started = performance.now();
  const outcome = await runStepInner(input);
  return {
    ...outcome,
    result: { ...outcome.result, stepSeconds: Math.round((performance.now() - started) / 1000) },
  };
}

async function runStepInner(input: StepInput): Promise<StepOutcome> {
  const { profile, timing, sessions } = input;
  const progress = input.onProgress ?? (() => undefined);
  progress("starting", 0);
  const sim = await startSim(input);
  const stateDir = mkdtempSync(join(tmpdir(), "aob-bench-"));
  mkdirSync(stateDir, { recursive: true });
  // Stopped by a signal, the finally below never runs: the guard removes the directory (after the broker).
  const unguardDir = guardProcess("the step's state directory", undefined, async () => {
    rmSync(stateDir, { recursive: true, force: true });
  });
  const clock = new StepClock(timing.scale);
  const truth = new TruthTracker(sim, `${BENCH_OWNER}/${BENCH_REPO}`);
  truth.start();
  const recorder = new StepRecorder({
    scale: timing.scale,
    simLatencyRealMs: profile.simulator.latencyMs / timing.scale,
    simLatencySimMs: profile.simulator.latencyMs,
    truth,
    costs: input.costs,
    ...(input.arm === "broker" ? { scaledWait: brokerScaledWait, explain: true } : {}),
  });
  const world = new WorldDriver({ sim, world: profile.world, scale: timing.scale });
  // One stream per kind of fate for the whole step: any window holds its share of each (core/fates.ts).
  const fates = createFates(profile.seed);
  const stop = new AbortController();
  // Every session's sleeps listen on this one signal: hundreds at once is the design, not a leak.
  setMaxListeners(0, stop.signal);
  const env: ArmEnv = {
    now: () => sim.now(),
    upstreamUrl: sim.url,
    token: sim.token,
    transport: input.transport,
    clock,
    recorder,
    profile,
    repo: world.repo,
    ghCache: { introspected: false },
    redisUrl: input.redisUrl,
    stateDir,
    stepId: input.stepId,
    signal: stop.signal,
  };
  let arm: ArmInstance | undefined;
  let brokerInfo: (() => BrokerArmInfo) | undefined;
  const lives: Promise<unknown>[] = [];
  const failures: string[] = [];
  const ticker = setInterval(() => void sim.advance(0), Math.max(20, 1000 / timing.scale));
  try {
    try {
      if (input.arm === "broker") {
        const secret = input.webhooks ? randomBytes(24).toString("hex") : undefined;
        const started = await startBrokerArm(
          env,
          secret ? { ...input.brokerConfig, webhooks: { secret } } : input.brokerConfig,
          input.brokerProcess,
          {
            readOnly: input.brokerSessionsReadOnly ?? false,
            // Payload URLs on the simulator's own base: the one the broker's upstream reads see.
            ...(secret
              ? {
                  onGateway: (gatewayUrl: string) =>
                    sim.setWebhooks({ url: `${gatewayUrl}/webhooks/github`, secret, apiBase: sim.url }),
                }
              : {}),
          },
        );
        arm = started.arm;
        brokerInfo = started.info;
      } else {
        arm = await startTokenArm(input.arm, env);
      }
    } catch (error) {
      throw new AoError(
        BenchErrors.AO_ERR_BENCH_ARM_FAILED,
        `the ${input.arm} arm could not start: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    const running = arm;
    let nextIndex = 0;
    const spawn = async (phase: "work" | "ci" | "review" | "fix" | "quiet", elapsed = 0): Promise<void> => {
      const index = nextIndex++;
      const spec: SessionSpec = {
        id: `s${index}`,
        index,
        issue: (index % issueCount(input)) + 1,
        branch: `ao/s${index}`,
      };
      const channel = await running.openSession(spec);
      if (phase === "quiet") {
        const pr = world.openPull({
          branch: spec.branch,
          issue: spec.issue,
          ciRunning: false,
          ciFailed: false,
          rng: createRng(index),
        });
        await running.orchestrator.watch(spec, pr);
        return;
      }
      await running.orchestrator.watch(spec);
      const agent = new AgentSession(spec, {
        profile,
        channel,
        orchestrator: running.orchestrator,
        world,
        clock,
        recorder,
        fates,
        jitter: createRng(deriveSeed(profile.seed, `jitter-${index}`)),
        signal: stop.signal,
        wrapperCache: input.arm !== "broker",
      });
      const life = agent
        .live({ phase, elapsed })
        .then(async (end) => {
          if (end !== "merged" || stop.signal.aborted) return;
          await running.orchestrator.unwatch(spec);
          await channel.close();
          await spawn("work");
        })
        .catch((error: unknown) => {
          if (!stop.signal.aborted)
            failures.push(`${spec.id}: ${error instanceof Error ? error.message : String(error)}`);
        });
      lives.push(life);
    };
    if (profile.agents) {
      const starts = initialPhases(
        profile.agents.initialPhase,
        sessions,
        createRng(deriveSeed(profile.seed, "initial-phases")),
      );
      for (const start of starts) await spawn(start.phase, start.elapsed);
    } else {
      for (let i = 0; i < sessions; i++) await spawn("quiet");
    }

    progress("warmup", 0);
    await waitReal(timing.warmupRealMs, (f) => progress("warmup", f));
    const countersBefore = parseCounterSamples((await running.scrapeMetrics?.()) ?? "");
    const before = sim.stats();
    const sampler = new SelfSampler();
    const redisBefore = input.arm === "broker" && input.redisPid ? readProcess(input.redisPid) : undefined;
    sampler.start();
    running.markWindowStart();
    recorder.beginWindow(sim.now());
    const windowStarted = performance.now();
    progress("measure", 0);
    await waitReal(timing.measureRealMs, (f) => progress("measure", f));
    recorder.endWindow(sim.now());
    const realSeconds = (performance.now() - windowStarted) / 1000;
    const after = sim.stats();
    const self = sampler.stop();
    const brokerUse = running.resourceUse();
    const redisAfter = redisBefore && input.redisPid ? readProcess(input.redisPid) : undefined;
    const redisCpu =
      redisBefore && redisAfter
        ? Math.round((redisAfter.cpuSeconds - redisBefore.cpuSeconds) * 10) / 10
        : null;
    const countersAfter = running.scrapeMetrics ? await running.scrapeMetrics() : undefined;
    progress("stopping", 0);

    const used = delta(after, before);
    const summary = recorder.summary();
    const graphqlPointsPerHour = perHour(
      used.graphqlPoints + summary.refusedGraphqlPoints,
      timing.measureSimS,
    );
    const restCorePerHour = perHour(used.restCharged + summary.refusedRestRequests, timing.measureSimS);
    const figures = {
      graphqlPointsPerHour,
      restCorePerHour,
      agentRateLimitErrors: summary.agentRateLimitErrors,
      // What the broker imposed, in simulated time; the machine's share is reported apart (0006).
      addedWaitMs: summary.imposedWaitMs,
      stalenessMs: summary.stalenessMs,
      stalenessByFact: summary.stalenessByFact,
      changeVisibilityMs: summary.changeVisibilityMs,
      writes: summary.writes,
    };
    const merged = summary.mergedPrs;
    const pointsPerMerged = merged > 0 ? Math.round(used.graphqlPoints / merged) : null;
    const judged = judgeStep(figures, input.criteria ?? DEFAULT_CRITERIA);
    // A session that crashed is a bench failure, never a pass: say so in the verdict.
    const verdict =
      failures.length === 0
        ? judged
        : {
            withinBudget: false,
            reasons: [...judged.reasons, `${failures.length} sessions failed (${failures[0]})`],
          };
    const result: StepResult = {
      arm: input.arm,
      profile: profile.name,
      sessions,
      windowSeconds: timing.measureSimS,
      warmupSeconds: timing.warmupSimS,
      timeScale: timing.scale,
      realSeconds: Math.round(realSeconds * 10) / 10,
      stepSeconds: 0,
      graphqlPointsPerHour: Math.round(graphqlPointsPerHour),
      restCorePerHour: Math.round(restCorePerHour),
      graphqlPointsCharged: used.graphqlPoints,
      restCoreCharged: used.restCharged,
      graphqlPointsRefused: summary.refusedGraphqlPoints,
      restCoreRefused: summary.refusedRestRequests,
      upstreamRequests: used.requests,
      upstreamNotModified: used.notModified,
      upstreamSecondaryLimited: used.secondaryLimited,
      agentRequests: summary.agentRequests,
      agentRequestsPerWallSecond: realSeconds > 0 ? Math.round(summary.agentRequests / realSeconds) : 0,
      agentCommands: summary.agentCommands,
      agentRateLimitErrors: summary.agentRateLimitErrors,
      agentOtherErrors: summary.agentOtherErrors,
      agentErrorsByOperation: summary.agentErrorsByOperation,
      addedWaitMs: summary.addedWaitMs,
      imposedWaitMs: summary.imposedWaitMs,
      machineLatencyMs: summary.machineLatencyMs,
      stalenessMs: summary.stalenessMs,
      stalenessByFact: summary.stalenessByFact,
      changeVisibilityMs: summary.changeVisibilityMs,
      writes: summary.writes,
      contentCreatingPerHour: Math.round(perHour(summary.contentCreating, timing.measureSimS) * 10) / 10,
      mergedPrs: merged,
      pointsPerMergedPr: pointsPerMerged,
      pointsPerFinishedTask: pointsPerMerged,
      mergedPerSessionHour:
        Math.round((perHour(merged, timing.measureSimS) / Math.max(1, sessions)) * 1000) / 1000,
      answersJudged: summary.answersJudged,
      answersStale: summary.answersStale,
      answersUnknown: summary.answersUnknown,
      pollCycleSeconds: summary.pollCycleSeconds,
      cache: summary.cache,
      broker: brokerUse,
      benchProcess: self,
      redisCpuSeconds: redisCpu,
      withinBudget: verdict.withinBudget,
      reasons: verdict.reasons,
      upstreamByOperation: used.byOperation,
      upstreamRestByOperation: used.restByOperation,
      commandsByName: summary.commandsByName,
      sessionFailures: failures.length,
      explain: summary.explain
        ? {
            ...summary.explain,
            brokerMetricsScraped: countersAfter !== undefined,
            brokerCounters: countersAfter
              ? counterBreakdown(countersBefore, parseCounterSamples(countersAfter))
              : null,
          }
        : null,
      ...webhookStats(sim),
    };
    return { result, broker: brokerInfo?.() };
  } finally {
    stop.abort();
    clearInterval(ticker);
    await Promise.race([Promise.allSettled(lives), new Promise((r) => setTimeout(r, 5000))]);
    await arm?.close().catch(() => undefined);
    world.close();
    truth.close();
    await sim.close();
    rmSync(stateDir, { recursive: true, force: true });
    unguardDir();
  }
}
