/**
 * The scorecard's shape: one StepResult per (arm, session count), and the report around them.
 * `--json FILE` writes a BenchReport; docs/architecture.md ("The benchmark") and issue 8 name the fields that must exist
 * (runs[].arm ... withinBudget, sessionsToBudget, calibration); the rest explains them.
 * All durations are SIMULATED time (see time-scale.ts) unless the name says `real`.
 */

import type { ExplainReport } from "./answer-breakdown.js";

export const ARMS = ["direct", "proxy", "broker"] as const;
export type ArmName = (typeof ARMS)[number];

/** One REST operation's upstream requests: answered in full (charged) or 304 (free). */
export interface RestOperationSplit {
  readonly fetched: number;
  readonly notModified: number;
}

export interface Percentiles3 {
  readonly p50: number | null;
  readonly p95: number | null;
  readonly p99: number | null;
}

export interface CacheMix {
  /** Agent answers that carried x-ao-broker-cache (broker) or the proxy's own label. */
  readonly labelled: number;
  readonly counts: Readonly<Record<string, number>>;
  /** HIT + STALE + REVALIDATED over labelled: answered without spending budget. */
  readonly hitRatio: number | null;
  readonly coalescedRatio: number | null;
  readonly batchedRatio: number | null;
}

/** Staleness of one kind of fact over every answer that stated it (simulated ms). */
export interface FactStaleness {
  readonly p50: number | null;
  readonly p99: number | null;
  /** Facts of this kind judged (one answer can state several). */
  readonly judged: number;
}

/** Every write an agent made in the window: outcome and latency (simulated ms, GitHub's latency included). */
export interface WriteFigures {
  readonly attempted: number;
  readonly succeeded: number;
  /** Dropped, refused or errored: any fails the step. */
  readonly failed: number;
  readonly p95Ms: number | null;
  /** Failed writes by "operation status". */
  readonly failedByOperation: Readonly<Record<string, number>>;
}

/** The most sessions any broker could carry on one token, from the profile's own model (core/ceiling.ts). */
export interface CeilingReport {
  readonly sessions: number;
  /** The limit that binds first. */
  readonly binding: string;
  /** What one session needs per hour at the least. */
  readonly perSessionHour: {
    readonly contentCreating: number;
    readonly graphqlPoints: number;
    readonly restRequests: number;
  };
  /** Sessions each limit alone allows. */
  readonly byLimit: Readonly<Record<string, number>>;
  /** How each per-session figure was derived, in words. */
  readonly derivation: readonly string[];
}

export interface ResourceUse {
  readonly cpuSeconds: number;
  /** CPU seconds per wall second × 100 (200 % = both cores of this machine). */
  readonly cpuPercent: number;
  readonly rssMb: number;
}

export interface StepResult {
  readonly arm: ArmName;
  readonly profile: string;
  readonly sessions: number;
  /** Measured window, simulated seconds. */
  readonly windowSeconds: number;
  readonly warmupSeconds: number;
  /** Time compression of this step (simulated seconds per wall second). */
  readonly timeScale: number;
  /** Wall seconds of the measured window. */
  readonly realSeconds: number;
  /** Wall seconds of the whole step: start-up, warm-up, window and tear-down. */
  readonly stepSeconds: number;
  /** What the arm asked GitHub for, per simulated hour: charged + refused-for-rate-limit. */
  readonly graphqlPointsPerHour: number;
  readonly restCorePerHour: number;
  /** The simulator's own accounting over the window (charged only). */
  readonly graphqlPointsCharged: number;
  readonly restCoreCharged: number;
  /** Estimated cost of requests GitHub refused for the primary limit (not charged). */
  readonly graphqlPointsRefused: number;
  readonly restCoreRefused: number;
  /** Requests that reached the simulator in the window (every kind, including 304s). */
  readonly upstreamRequests: number;
  readonly upstreamNotModified: number;
  readonly upstreamSecondaryLimited: number;
  /** Requests the agents sent (their gh commands' requests). */
  readonly agentRequests: number;
  /** Agent requests per wall second over the window: the load the step's compression put on the machine. */
  readonly agentRequestsPerWallSecond: number;
  readonly agentCommands: number;
  readonly agentRateLimitErrors: number;
  readonly agentOtherErrors: number;
  /** Agent answers that failed for another reason, by "operation status" (a 404 after a merge, a 422...). */
  readonly agentErrorsByOperation: Readonly<Record<string, number>>;
  /** Agent request latency minus the simulator's configured latency, simulated ms, ≥ 0. */
  readonly addedWaitMs: Percentiles3;
  /**
   * The part of the added wait the broker imposed by design (its x-ao-broker-wait-ms: batching
   * windows, budget and upstream queues), in simulated time (× scale). 0 for direct and proxy.
   * The verdict judges this, not the machine's share.
   */
  readonly imposedWaitMs: Percentiles3;
  /** The rest: processing on this (shared) machine, wall ms as measured, reported apart. */
  readonly machineLatencyMs: Percentiles3;
  readonly stalenessMs: { readonly p50: number | null; readonly p99: number | null };
  /** Per kind of fact, every fact every answer stated (core/facts.ts FACT_KINDS). */
  readonly stalenessByFact: Readonly<Record<string, FactStaleness>>;
  /** From a change in the world until every agent that reads that fact has seen it (simulated ms). */
  readonly changeVisibilityMs: {
    readonly p50: number | null;
    readonly p99: number | null;
    readonly changes: number;
  };
  readonly writes: WriteFigures;
  /** Content-creating writes (PRs, comments, reviews, issues) per simulated hour; GitHub allows 500/h, 80/min. */
  readonly contentCreatingPerHour: number;
  /** PRs the agents merged in the window (each one a finished agent task). */
  readonly mergedPrs: number;
  /** GraphQL points charged in the window per merged PR (null when none merged). */
  readonly pointsPerMergedPr: number | null;
  /** Points per finished agent task: a task ends with its merge, so it equals pointsPerMergedPr here. */
  readonly pointsPerFinishedTask: number | null;
  /** Merged PRs per session-hour (the closed loop's throughput: a slow broker merges fewer). */
  readonly mergedPerSessionHour: number;

  readonly answersJudged: number;
  readonly answersStale: number;
  readonly answersUnknown: number;
  /** Orchestrator: period between poll-cycle starts (AO loop) or the broker lifecycle's cycles. */
  readonly pollCycleSeconds: { readonly p50: number | null; readonly p95: number | null };
  readonly cache: CacheMix;
  /** The broker's own process (child-process brokers only); null for other arms. */
  readonly broker: ResourceUse | null;
  /** The bench process (agents, simulator, in-process proxy or broker). */
  readonly benchProcess: ResourceUse & { readonly eventLoopLagP95Ms: number | null };
  /** CPU seconds of the private redis-server over the window (broker arm); null otherwise. */
  readonly redisCpuSeconds: number | null;
  readonly withinBudget: boolean;
  readonly reasons: readonly string[];
  /** Upstream requests by operation (GraphQL operation name or REST route). */
  readonly upstreamByOperation: Readonly<Record<string, number>>;
  /** The REST operations of upstreamByOperation, split into full answers and 304s. */
  readonly upstreamRestByOperation: Readonly<Record<string, RestOperationSplit>>;
  /** Agent commands by name. */
  readonly commandsByName: Readonly<Record<string, number>>;
  /** Sessions that stopped on an unexpected error (a bench bug or an arm failure); > 0 fails the step. */
  readonly sessionFailures: number;
  /**
   * `confirm`: a step judged like the full run's, which decides the answer (every full-run step);
   * `scout`: a quick run's short-window step, which only guides the search (docs/decisions/0015).
   */
  readonly tier?: "scout" | "confirm";
  /**
   * The broker arm's per-answer breakdown (core/answer-breakdown.ts, issue 16): the reason for every
   * answer that read upstream, and the share of GraphQL points that fetched an answer identical to
   * the last one served for the same query. Null for the other arms.
   */
  readonly explain?: ExplainReport | null;
  /**
   * With `--webhooks` (broker arm): the simulator's deliveries over the whole step (warm-up
   * included) — delivered, retried, failed, dropped. Absent without webhooks.
   */
  readonly webhooks?: {
    readonly delivered: number;
    readonly retried: number;
    readonly failed: number;
    readonly dropped: number;
  };
}

export interface Calibration {
  /** The seed's measurement: 5 real agents, 4,944 points in 31 minutes. */
  readonly target: number;
  readonly tolerance: number;
  readonly directPointsPerHourAt5Active: number | null;
  readonly withinTolerance: boolean | null;
}

export interface RealGhCommandCheck {
  readonly command: string;
  readonly path: "direct" | "broker";
  readonly realGraphqlPoints: number;
  readonly realRestCore: number;
  readonly replayGraphqlPoints: number;
  readonly replayRestCore: number;
  readonly realOperations: readonly string[];
  readonly replayOperations: readonly string[];
}

export interface RealGhReport {
  readonly ghVersion: string;
  readonly commands: readonly RealGhCommandCheck[];
  readonly realCost: number;
  readonly replayCost: number;
  /** |replay − real| / real over all commands (GraphQL points + REST requests). */
  readonly deviation: number;
  readonly withinGoal: boolean;
}

export interface BenchReport {
  readonly tool: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly machine: Readonly<Record<string, string | number>>;
  readonly command: string;
  readonly options: Readonly<Record<string, unknown>>;
  /** How time was compressed and projected, in words (also printed). */
  readonly method: readonly string[];
  readonly runs: readonly StepResult[];
  readonly sessionsToBudget: Readonly<Partial<Record<ArmName, number>>>;
  /** Per arm: "exact" (a failing count bounds it) or "at-least" (the largest count tried passed). */
  readonly sessionsToBudgetBound: Readonly<Partial<Record<ArmName, "exact" | "at-least" | "none">>>;
  readonly calibration: Calibration;
  /** The most sessions any broker could carry (the profile's model), and what binds. */
  readonly ceiling: CeilingReport | null;
  /** Per arm: sessionsToBudget ÷ ceiling.sessions. */
  readonly ofCeiling: Readonly<Partial<Record<ArmName, number>>>;
  /** Things a reader must know to read the figures (how the broker's orchestrator ran, where a search stopped). */
  readonly notes: readonly string[];
  readonly realGh: RealGhReport | null;
}

/** The issue-13 figures of a step that measured none of them (a `--target` run, fixtures). */
export function unmeasuredFigures(): Pick<
  StepResult,
  | "imposedWaitMs"
  | "machineLatencyMs"
  | "stalenessByFact"
  | "changeVisibilityMs"
  | "writes"
  | "contentCreatingPerHour"
  | "mergedPrs"
  | "pointsPerMergedPr"
  | "pointsPerFinishedTask"
  | "mergedPerSessionHour"
> {
  return {
    imposedWaitMs: { p50: null, p95: null, p99: null },
    machineLatencyMs: { p50: null, p95: null, p99: null },
    stalenessByFact: {},
    changeVisibilityMs: { p50: null, p99: null, changes: 0 },
    writes: { attempted: 0, succeeded: 0, failed: 0, p95Ms: null, failedByOperation: {} },
    contentCreatingPerHour: 0,
    mergedPrs: 0,
    pointsPerMergedPr: null,
    pointsPerFinishedTask: null,
    mergedPerSessionHour: 0,
  };
}
