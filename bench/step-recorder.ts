/**
 * Collects what one step measures from the agents' side: every request's latency, outcome, cache
 * label and the staleness of the facts it stated; every command; the orchestrator's poll cycles.
 * Only what happens inside the measured window counts (`measuring`); warm-up is discarded.
 * Wall-clock durations are converted to simulated time here (× scale), once.
 */
import type { RateLimitKind } from "./core/answer-kind.js";
import type { Fact } from "./core/facts.js";
import { percentiles } from "./core/percentiles.js";
import type { CacheMix, Percentiles3 } from "./core/report-types.js";
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
  readonly graphql?:
    | { readonly query: string; readonly variables: Readonly<Record<string, unknown>> }
    | undefined;
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
}

/** The broker's answers that never waited on a compressed constant: served from its cache. */
export const brokerScaledWait = (label: string | undefined): boolean => label !== "HIT" && label !== "STALE";

export interface RecorderSummary {
  readonly agentRequests: number;
  readonly agentCommands: number;
  readonly agentRateLimitErrors: number;
  readonly agentSecondaryLimitErrors: number;
  readonly agentOtherErrors: number;
  readonly refusedGraphqlPoints: number;
  readonly refusedRestRequests: number;
  readonly addedWaitMs: Percentiles3;
  readonly stalenessMs: { readonly p50: number | null; readonly p99: number | null };
  readonly answersJudged: number;
  readonly answersStale: number;
  readonly answersUnknown: number;
  readonly pollCycleSeconds: { readonly p50: number | null; readonly p95: number | null };
  readonly cache: CacheMix;
  readonly commandsByName: Readonly<Record<string, number>>;
  readonly agentErrorsByOperation: Readonly<Record<string, number>>;
}

export class StepRecorder {
  measuring = false;
  readonly #o: RecorderOptions;
  readonly #waits: number[] = [];
  readonly #staleness: number[] = [];
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

  constructor(options: RecorderOptions) {
    this.#o = options;
  }

  async recordRequest(observation: RequestObservation): Promise<void> {
    if (!this.measuring) return;
    this.#requests++;
    const extra = Math.max(0, observation.latencyRealMs - this.#o.simLatencyRealMs);
    const designed = observation.designedWaitMs;
    const added =
      designed !== undefined
        ? Math.min(designed, extra) * this.#o.scale + Math.max(0, extra - designed)
        : this.#o.scaledWait?.(observation.cacheLabel)
          ? extra * this.#o.scale
          : extra;
    this.#waits.push(added);
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
        if (verdict.kind === "stale") worst = Math.max(worst, verdict.staleMs);
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
      stalenessMs: stale,
      answersJudged: this.#judged,
      answersStale: this.#stale,
      answersUnknown: this.#unknown,
      pollCycleSeconds: cycles,
      cache: {
        labelled: this.#labelled,
        counts: Object.fromEntries([...this.#cache].sort(([a], [b]) => a.localeCompare(b))),
        hitRatio: ratio(count("HIT", "STALE", "REVALIDATED")),
        coalescedRatio: ratio(count("COALESCED")),
        batchedRatio: ratio(count("BATCHED")),
      },
      commandsByName: Object.fromEntries([...this.#commands].sort(([a], [b]) => a.localeCompare(b))),
      agentErrorsByOperation: Object.fromEntries([...this.#errors].sort(([a], [b]) => a.localeCompare(b))),
    };
  }
}
