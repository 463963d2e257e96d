/**
 * Collects what one step measures from the agents' side: every request's latency, outcome, cache
 * label and the staleness of the facts it stated; every command; the orchestrator's poll cycles.
 * Only what happens inside the measured window counts (`measuring`); warm-up is discarded.
 * Wall-clock durations are converted to simulated time here (× scale), once.
 */
import { AnswerBreakdown, type AnswerObservation, type ExplainFigures } from "./core/answer-breakdown.js";
import type { RateLimitKind } from "./core/answer-kind.js";
import { ChangeVisibility } from "./core/change-visibility.js";
import { FACT_KINDS, type Fact, type FactKind, factKind } from "./core/facts.js";
import { percentiles } from "./core/percentiles.js";
import type { CacheMix, FactStaleness, Percentiles3, WriteFigures } from "./core/report-types.js";
import type { CostEstimator } from "./cost-estimator.js";
import type { TruthTracker } from "./truth-tracker.js";

export interface RequestObservation {
  readonly operation: string;
  readonly status?: number | undefined;
  readonly latencyRealMs: number;
  readonly ok: boolean;
  readonly rateLimit: RateLimitKind | null;
  /** x-ao-broker-cache or the proxy's x-cache-mode. */
  readonly cacheLabel?: string | undefined;
  readonly facts: readonly Fact[];
  /**
   * The broker's own account of the time this request spent waiting by design (batching window,
   * budget queue, upstream queue), from `x-ao-broker-wait-ms`, when the broker sends it.
   */
  readonly designedWaitMs?: number | undefined;
  /** Simulator clock (epoch ms) when the answer arrived. */
  readonly receivedAt: number;
  /** Who read the answer (the session id), for per-change visibility. */
  readonly reader?: string | undefined;
  /** Set for a write (a REST method other than GET/HEAD, or a GraphQL mutation). */
  readonly write?: { readonly contentCreating: boolean } | undefined;
  readonly graphql?:
    | { readonly query: string; readonly variables: Readonly<Record<string, unknown>> }
    | undefined;
  /** The answer's identity and cost for the per-answer breakdown (`explaining` recorders only). */
  readonly answer?: AnswerObservation | undefined;
}

export interface RecorderOptions {
  readonly scale: number;
  /** The simulator's fixed latency in wall ms (subtracted from every request's latency). */
  readonly simLatencyRealMs: number;
  readonly truth: TruthTracker | undefined;
  readonly costs: CostEstimator;
  /**
   * Whether a request's wait may include a compressed time constant (a batching window, a budget
   * queue, pacing): such waits are scaled back to simulated time (× scale) in full; waits that
   * cannot include one (a cache hit, a direct call) are processing time and reported as measured.
   * @defaultValue never
   */
  readonly scaledWait?: (cacheLabel: string | undefined) => boolean;
  /** GitHub's latency in simulated ms (part of a write's latency). @defaultValue 0 */
  readonly simLatencySimMs?: number;
  /** Follow every answer for the per-answer breakdown (core/answer-breakdown.ts; the broker arm). @defaultValue false */
  readonly explain?: boolean;
}

/** The broker's answers that never waited on a compressed constant: served from its cache. */
export const brokerScaledWait = (label: string | undefined): boolean =>
  label !== "HIT" && label !== "STALE" && label !== "STALE_REVALIDATING";

export interface RecorderSummary {
  readonly agentRequests: number;
  readonly agentCommands: number;
  readonly agentRateLimitErrors: number;
  readonly agentSecondaryLimitErrors: number;
  readonly agentOtherErrors: number;
  readonly refusedGraphqlPoints: number;
  readonly refusedRestRequests: number;
  readonly addedWaitMs: Percentiles3;
  readonly imposedWaitMs: Percentiles3;
  readonly machineLatencyMs: Percentiles3;
  readonly stalenessMs: { readonly p50: number | null; readonly p99: number | null };
  readonly stalenessByFact: Readonly<Partial<Record<FactKind, FactStaleness>>>;
  readonly changeVisibilityMs: {
    readonly p50: number | null;
    readonly p99: number | null;
    readonly changes: number;
  };
  readonly writes: WriteFigures;
  readonly contentCreating: number;
  readonly mergedPrs: number;
  readonly answersJudged: number;
  readonly answersStale: number;
  readonly answersUnknown: number;
  readonly pollCycleSeconds: { readonly p50: number | null; readonly p95: number | null };
  readonly cache: CacheMix;
  readonly commandsByName: Readonly<Record<string, number>>;
  readonly agentErrorsByOperation: Readonly<Record<string, number>>;
  /** Where the points went, answer by answer (explaining recorders); null otherwise. */
  readonly explain: ExplainFigures | null;
}

export class StepRecorder {
  measuring = false;
  readonly #o: RecorderOptions;
  readonly #waits: number[] = [];
  readonly #imposed: number[] = [];
  readonly #machine: number[] = [];
  readonly #writeLatency: number[] = [];
  readonly #writeFailures = new Map<string, number>();
  readonly #byKind = new Map<FactKind, number[]>();
  readonly #staleness: number[] = [];
  #visibility: ChangeVisibility | undefined;
  #windowEnd: number | undefined;
  #writes = 0;
  #writesFailed = 0;
  #contentCreating = 0;
  #merged = 0;
  readonly #cycles: number[] = [];
  readonly #cache = new Map<string, number>();
  readonly #commands = new Map<string, number>();
  readonly #errors = new Map<string, number>();
  #requests = 0;
  #rateLimited = 0;
  #secondary = 0;
  #otherErrors = 0;
  #refusedPoints = 0;
  #refusedRest = 0;
  #judged = 0;
  #stale = 0;
  #unknown = 0;
  #labelled = 0;

  readonly #breakdown: AnswerBreakdown | undefined;

  constructor(options: RecorderOptions) {
    this.#o = options;
    this.#breakdown = options.explain ? new AnswerBreakdown() : undefined;
  }

  /** Whether requests should carry `answer` (their key and body hash) for the breakdown. */
  get explaining(): boolean {
    return this.#breakdown !== undefined;
  }

  #batchBoundSimMs: number | undefined;
  #writeBoundSimMs: number | undefined;

  /**
   * The longest a read may wait by the broker's design (its largest agent-facing batching
   * budget, simulated ms). A read's designed wait up to this bound is scaled back to simulated
   * time; beyond it, it counts at its real duration (a late timer, a loaded queue) — see
   * docs/decisions/0006. A write's bound is the broker's mutation spacing, likewise.
   */
  setWaitBounds(readSimMs: number, writeSimMs: number): void {
    this.#batchBoundSimMs = readSimMs;
    this.#writeBoundSimMs = writeSimMs;
  }

  /** Starts the measured window at `at` (the simulator's clock). */
  beginWindow(at: number): void {
    this.measuring = true;
    if (this.#o.truth) this.#visibility = new ChangeVisibility(this.#o.truth.history, at);
  }

  endWindow(at: number): void {
    this.measuring = false;
    this.#windowEnd = at;
  }

  /** An agent's `gh pr merge` succeeded: its task is done. */
  recordMerge(): void {
    if (this.measuring) this.#merged++;
  }

  async recordRequest(observation: RequestObservation): Promise<void> {
    // Warm-up answers count as "the last answer served" for the window's first reads.
    if (observation.answer) this.#breakdown?.observe(observation.answer, this.measuring);
    if (!this.measuring) return;
    this.#requests++;
    const extra = Math.max(0, observation.latencyRealMs - this.#o.simLatencyRealMs);
    const designed = observation.designedWaitMs;
    // What the broker imposed by design runs on compressed constants: back to simulated time
    // (× scale). The rest is the machine's processing time, reported as measured and apart.
    const imposedReal =
      designed !== undefined
        ? Math.min(designed, extra)
        : this.#o.scaledWait?.(observation.cacheLabel)
          ? extra
          : 0;
    // A read's designed wait runs on the broker's batching window, a compressed constant: up to
    // that bound it is scaled back (× scale). Beyond it, it is a timer that fired late or a queue
    // slowed by a loaded machine: counted at its real duration, as it would cost an agent at ×1.
    // A write's is the mutation spacing (queue.pacing), compressed the same way.
    const bound = observation.write ? this.#writeBoundSimMs : this.#batchBoundSimMs;
    const nominalReal = bound !== undefined ? Math.min(imposedReal, bound / this.#o.scale) : imposedReal;
    const imposed = nominalReal * this.#o.scale + (imposedReal - nominalReal);
    const machine = extra - imposedReal;
    this.#waits.push(imposed + machine);
    this.#imposed.push(imposed);
    this.#machine.push(machine);
    if (observation.write) {
      this.#writes++;
      if (observation.write.contentCreating) this.#contentCreating++;
      this.#writeLatency.push((this.#o.simLatencySimMs ?? 0) + imposed + machine);
      if (!observation.ok) {
        this.#writesFailed++;
        const key = `${observation.operation} ${observation.status ?? "?"}`;
        this.#writeFailures.set(key, (this.#writeFailures.get(key) ?? 0) + 1);
      }
    }
    if (observation.rateLimit) {
      this.#rateLimited++;
      if (observation.rateLimit === "secondary") this.#secondary++;
      else if (observation.graphql)
        this.#refusedPoints += this.#o.costs.graphqlPoints(
          observation.graphql.query,
          observation.graphql.variables,
        );
      else this.#refusedRest++;
    } else if (!observation.ok) {
      this.#otherErrors++;
      const key = `${observation.operation} ${observation.status ?? "?"}`;
      this.#errors.set(key, (this.#errors.get(key) ?? 0) + 1);
    }
    if (observation.cacheLabel) {
      this.#labelled++;
      this.#cache.set(observation.cacheLabel, (this.#cache.get(observation.cacheLabel) ?? 0) + 1);
    }
    if (observation.ok && observation.facts.length > 0 && this.#o.truth) {
      await this.#o.truth.sync();
      let worst = 0;
      let known = false;
      for (const fact of observation.facts) {
        const verdict = this.#o.truth.judge(fact, observation.receivedAt);
        if (verdict.kind === "unknown") continue;
        known = true;
        const staleMs = verdict.kind === "stale" ? verdict.staleMs : 0;
        worst = Math.max(worst, staleMs);
        const kind = factKind(fact.key);
        if (kind) {
          const list = this.#byKind.get(kind) ?? [];
          list.push(staleMs * this.#o.scale);
          this.#byKind.set(kind, list);
        }
        if (observation.reader)
          this.#visibility?.observe(observation.reader, fact.key, fact.value, observation.receivedAt);
      }
      if (!known) {
        this.#unknown++;
        return;
      }
      this.#judged++;
      if (worst > 0) this.#stale++;
      this.#staleness.push(worst * this.#o.scale);
    }
  }

  /** A request of the orchestrator's that GitHub refused for the primary limit (counted as demand). */
  recordOrchestratorRefusal(
    graphql: { readonly query: string; readonly variables: Readonly<Record<string, unknown>> } | undefined,
  ): void {
    if (!this.measuring) return;
    if (graphql) this.#refusedPoints += this.#o.costs.graphqlPoints(graphql.query, graphql.variables);
    else this.#refusedRest++;
  }

  recordCommand(name: string): void {
    if (!this.measuring) return;
    this.#commands.set(name, (this.#commands.get(name) ?? 0) + 1);
  }

  /** One orchestrator poll cycle's period, simulated seconds. */
  recordPollCycle(simSeconds: number): void {
    if (this.measuring) this.#cycles.push(simSeconds);
  }

  summary(): RecorderSummary {
    const waits = percentiles(this.#waits, [50, 95, 99] as const);
    const byFact: Partial<Record<FactKind, FactStaleness>> = {};
    for (const kind of FACT_KINDS) {
      const list = this.#byKind.get(kind) ?? [];
      const p = percentiles(list, [50, 99] as const);
      byFact[kind] = { p50: p.p50, p99: p.p99, judged: list.length };
    }
    const visibilityDelays = (
      this.#visibility?.delays(this.#windowEnd ?? Number.POSITIVE_INFINITY) ?? []
    ).map((ms) => ms * this.#o.scale);
    const visibility = percentiles(visibilityDelays, [50, 99] as const);
    const writeP = percentiles(this.#writeLatency, [95] as const);
    const stale = percentiles(this.#staleness, [50, 99] as const);
    const cycles = percentiles(this.#cycles, [50, 95] as const);
    const count = (...labels: string[]) => labels.reduce((sum, l) => sum + (this.#cache.get(l) ?? 0), 0);
    const ratio = (n: number) => (this.#labelled === 0 ? null : n / this.#labelled);
    return {
      agentRequests: this.#requests,
      agentCommands: [...this.#commands.values()].reduce((a, b) => a + b, 0),
      agentRateLimitErrors: this.#rateLimited,
      agentSecondaryLimitErrors: this.#secondary,
      agentOtherErrors: this.#otherErrors,
      refusedGraphqlPoints: this.#refusedPoints,
      refusedRestRequests: this.#refusedRest,
      addedWaitMs: waits,
      imposedWaitMs: percentiles(this.#imposed, [50, 95, 99] as const),
      machineLatencyMs: percentiles(this.#machine, [50, 95, 99] as const),
      stalenessMs: stale,
      stalenessByFact: byFact,
      changeVisibilityMs: { p50: visibility.p50, p99: visibility.p99, changes: visibilityDelays.length },
      writes: {
        attempted: this.#writes,
        succeeded: this.#writes - this.#writesFailed,
        failed: this.#writesFailed,
        p95Ms: writeP.p95,
        failedByOperation: Object.fromEntries(
          [...this.#writeFailures].sort(([a], [b]) => a.localeCompare(b)),
        ),
      },
      contentCreating: this.#contentCreating,
      mergedPrs: this.#merged,
      answersJudged: this.#judged,
      answersStale: this.#stale,
      answersUnknown: this.#unknown,
      pollCycleSeconds: cycles,
      cache: {
        labelled: this.#labelled,
        counts: Object.fromEntries([...this.#cache].sort(([a], [b]) => a.localeCompare(b))),
        hitRatio: ratio(count("HIT", "STALE", "STALE_REVALIDATING", "REVALIDATED")),
        coalescedRatio: ratio(count("COALESCED")),
        batchedRatio: ratio(count("BATCHED")),
      },
      commandsByName: Object.fromEntries([...this.#commands].sort(([a], [b]) => a.localeCompare(b))),
      agentErrorsByOperation: Object.fromEntries([...this.#errors].sort(([a], [b]) => a.localeCompare(b))),
      explain: this.#breakdown?.summary() ?? null,
    };
  }
}
