/**
 * The batcher's public types: what it asks the broker to send upstream, what it gets back, and
 * what each caller receives. Kept apart from the scheduler so adapters can depend on the shapes
 * without the machinery.
 */
import type { GraphQLSchema } from "graphql";
import type { PriorityClass } from "../pipeline/types.js";
import type { AloneReason } from "./core/alone-reason.js";
import type { BatchClass } from "./core/batch-class.js";
import type { RateLimitData } from "./core/graphql-response.js";
import type { PartnerHoldSettings } from "./core/partner-hold.js";
import type { RetryReason } from "./core/split-response.js";
import type { TightBudgetSettings } from "./core/tight-budget.js";

/** One GraphQL POST the batcher asks the broker to send upstream. */
export interface UpstreamGraphQLRequest {
  readonly query: string;
  /** The JSON `variables` member; always an object for merged queries, verbatim for alone ones. */
  readonly variables: unknown;
  readonly operationName: string | undefined;
  /** The highest priority among the members. */
  readonly priority: PriorityClass;
  readonly mergeKey: string;
  /** Headers of the group's first member (same mergeKey ⇒ same relevant headers). */
  readonly headers: Readonly<Record<string, string>>;
  readonly memberIds: readonly string[];
  readonly kind: "merged" | "alone" | "retry";
}

export interface UpstreamReply {
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array;
}

export interface BatchResponse {
  readonly status: number;
  /** The upstream reply's headers minus content-length and etag (the body was rewritten). */
  readonly headers: Readonly<Record<string, string>>;
  /** JSON text: this member's answer. */
  readonly body: string;
}

export interface BatchOutcome {
  readonly response: BatchResponse;
  /** Points charged to this member: its share of every upstream query it took part in. */
  readonly costShare: number;
  /** Where the charge came from: the injected rateLimit, the computed cost, or nothing known. */
  readonly costSource: "rateLimit" | "computed" | "none";
  /** True when the answer came out of a merged query. */
  readonly batched: boolean;
  /** Members in the query that answered (1 when alone). */
  readonly batchSize: number;
  /** Time from submit until the query that answered was sent, ms. */
  readonly waitedMs: number;
  /** A merged attempt failed for this member, and it was sent alone. */
  readonly retriedAlone: boolean;
  readonly retryReason?: RetryReason | "merged-rejected" | undefined;
  /** Why this member never joined a batch. */
  readonly aloneReason?: AloneReason | undefined;
}

/** Reported once per upstream query, for budget learning and tracing. */
export interface UpstreamObservation {
  readonly request: UpstreamGraphQLRequest;
  readonly status: number;
  /** The injected rateLimit's answer, when it came back. */
  readonly rateLimit: RateLimitData | undefined;
  readonly computedCost: number | undefined;
}

export interface BatchClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The real clock, for the scheduler and the write batcher when a test gives none. */
export const SYSTEM_BATCH_CLOCK: BatchClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface SubmitOptions {
  /** Only members with equal keys share a query. @defaultValue "" */
  readonly mergeKey?: string | undefined;
  /** @defaultValue "interactive" */
  readonly batchClass?: BatchClass | undefined;
  /** Overrides the class budget, ms. */
  readonly maxDelayMs?: number | undefined;
  /** @defaultValue "interactive" */
  readonly priority?: PriorityClass | undefined;
  /** Forwarded with the request (the first member's, for a merged query). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /**
   * The agent session asking: its submission counts as an arrival for other sessions' partner
   * holds (core/partner-hold.ts), and its own hold counts only others'. Absent: neither.
   */
  readonly sessionId?: string | undefined;
}

export interface BatchSchedulerOptions {
  /** Sends one GraphQL POST upstream (the broker's upstream queue). */
  readonly send: (request: UpstreamGraphQLRequest) => Promise<UpstreamReply>;
  /** GitHub's schema (github/ loadGitHubSchema()). */
  readonly schema: GraphQLSchema;
  /** Latency budget per class, ms. @defaultValue DEFAULT_BATCH_BUDGETS_MS */
  readonly budgetsMs?: Partial<Record<BatchClass, number>> | undefined;
  /** Members per merged query. @defaultValue 50 */
  readonly maxMembers?: number | undefined;
  /** Computed points per merged query. @defaultValue 20 */
  readonly maxCost?: number | undefined;
  /** Nodes per merged query. @defaultValue MAX_NODE_LIMIT (500,000) */
  readonly maxNodes?: number | undefined;
  /** Query texts whose analysis is kept. @defaultValue batching.analysisCacheEntries (docs/config.md) */
  readonly analysisCacheEntries?: number | undefined;
  /** Add `rateLimit` to every forwarded query to learn its real cost. @defaultValue true */
  readonly injectRateLimit?: boolean | undefined;
  /** Called once per upstream query. */
  readonly observe?: ((observation: UpstreamObservation) => void) | undefined;
  /** @defaultValue the global timers and Date.now */
  readonly clock?: BatchClock | undefined;
  /**
   * Grow the batching window when the GraphQL budget is tight (core/tight-budget.ts): the spend
   * pressure is read from the x-ratelimit-* headers of the scheduler's own upstream answers.
   * Absent: windows stay at their class's budget. Never applies to the lifecycle class, nor to a
   * member with its own maxDelayMs (the broker's refreshes).
   */
  /**
   * Hold an interactive first-time read for `windowMs` when other sessions' recent arrivals predict
   * a partner (core/partner-hold.ts); absent: interactive reads keep their class budget.
   */
  readonly partnerHold?:
    | (PartnerHoldSettings & {
        readonly maxEntries: number;
        /** The lifecycle class waits for partners too (decision 0025). @defaultValue false */
        readonly lifecycle?: boolean | undefined;
      })
    | undefined;
  readonly tightBudget?:
    | (TightBudgetSettings & {
        /** The budget window's length (GitHub's primary limits: an hour). */
        readonly budgetWindowMs: number;
      })
    | undefined;
}

export interface BatchSchedulerStats {
  readonly submitted: number;
  /** Members answered out of a merged query. */
  readonly batchedMembers: number;
  /** Members answered by a query of their own (ineligible, partnerless or retried). */
  readonly aloneMembers: number;
  readonly retriedAlone: number;
  readonly mergedQueries: number;
  readonly upstreamQueries: number;
  /** Σ real (or computed) points of all upstream queries. */
  readonly pointsSpent: number;
  /** Σ computed points the same members would have cost alone. */
  readonly pointsAlone: number;
}
