/**
 * What the gateway pipeline needs from the parts beside it, as small interfaces. The composition
 * root (broker/create-broker.ts) adapts the real BudgetGate, UpstreamQueue and BatchScheduler to
 * these; tests can hand in counting fakes. Keeping the seams here means the pipeline never imports
 * BullMQ or the Lua scripts, and each of those parts can change shape without rippling through.
 */
import type { RateLimitResource, RateLimitSnapshot } from "../../github/index.js";
import type { PriorityClass } from "./types.js";

export interface UpstreamRequest {
  readonly requestId: string;
  readonly sessionId: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer | undefined;
  readonly kind: "rest" | "graphql";
  readonly resource: RateLimitResource;
  readonly priority: PriorityClass;
  /** Safe to send twice (GETs, GraphQL queries). Writes are never retried blindly. */
  readonly idempotent: boolean;
  readonly mutation: boolean;
  /** Creates a PR, issue, comment or review: counted against GitHub's content-creation limits. */
  readonly contentCreation: boolean;
  /** How many content-creating requests it counts as (a merged mutation's creating members). @defaultValue 1 */
  readonly contentCreations?: number | undefined;
  /** Costs nothing at GitHub (GET /rate_limit): answered even when its bucket is spent. */
  readonly free?: boolean | undefined;
  readonly deadlineAt: number;
}

export interface UpstreamAnswer {
  readonly status: number;
  /** Lower-case names; content-encoding already undone. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly queueWaitMs?: number | undefined;
  /** Points GitHub reported for a GraphQL query (the injected rateLimit), when the port read it. */
  readonly graphqlCost?: number | undefined;
}

export interface UpstreamPort {
  send(request: UpstreamRequest): Promise<UpstreamAnswer>;
}

export interface AdmissionRequest {
  readonly sessionId: string;
  readonly weight: number;
  /** Parent budget: one fair-share participant for all its sessions. */
  readonly group?: string | undefined;
  readonly resource: RateLimitResource;
  readonly cost: number;
  readonly priority: PriorityClass;
  readonly deadlineAt: number;
}

export interface Charge {
  readonly sessionId: string;
  readonly cost: number;
}

export interface SettleDetails {
  readonly charges?: readonly Charge[] | undefined;
  /** GitHub's rate-limit report from the same answer, reconciled with the settled cost atomically. */
  readonly rateLimit?: RateLimitSnapshot | undefined;
}

export interface Admission {
  readonly waitedMs: number;
  /**
   * Records the real cost (0 for a 304) and frees the reservation. `charges` splits the cost among
   * the sessions that shared the call (coalesced followers, batch members); absent → the admitted
   * session pays all.
   */
  settle(actualCost: number, outcome?: SettleDetails): Promise<void>;
  /** Frees the reservation without charging (the request was never sent). */
  release(): Promise<void>;
}

/** What `tryAdmit` answers: admitted now, or refused with when it would be worth trying again. */
export type AdmissionDecision =
  | { readonly admitted: true; readonly admission: Admission }
  | { readonly admitted: false; readonly retryAt: number };

export interface BudgetPort {
  /** Resolves when the request may spend (waiting for refill); rejects past the deadline (rate limited). */
  admit(request: AdmissionRequest): Promise<Admission>;
  /**
   * Admits only if the request may spend now; otherwise says until when it would wait. Used when
   * the caller has a stale answer to fall back on. Rejects only on real errors.
   */
  tryAdmit(request: AdmissionRequest): Promise<AdmissionDecision>;
  /** Feeds GitHub's own numbers from an answer that was not admitted (free requests). */
  observe(snapshot: RateLimitSnapshot): void;
  /** The session's own view of a bucket, for its x-ratelimit-* headers. */
  sessionView(sessionId: string, resource: RateLimitResource, weight?: number): RateLimitSnapshot | undefined;
}
