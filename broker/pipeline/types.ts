/**
 * The seam every gateway layer shares (prow ghcache's round-tripper, octokit's hook.wrap):
 * a Handler turns a GhRequest into a GhResponse, and a Layer wraps a Handler with one job
 * (cache, coalesce, batch, budget, queue, upstream). createGatewayPipeline assembles them.
 */
import type { RateLimitResource, RateLimitSnapshot } from "../../github/index.js";
import { CACHE_RESULT_VALUES } from "../../otel/index.js";
import type { CachedAnswer } from "../cache/response-cache.js";
import type { RequestClass } from "./classify.js";
import type { GraphQLPayload } from "./graphql-payload.js";

/** Upstream priority classes, highest first. Starvation-free: see broker/upstream. */
export const PRIORITY_CLASSES = ["lifecycle", "interactive", "write", "background"] as const;
export type PriorityClass = (typeof PRIORITY_CLASSES)[number];

/** How an answer was served; sent as `x-ao-broker-cache` (the list is otel's, one copy). */
export const CACHE_RESULTS = CACHE_RESULT_VALUES;
export type CacheResult = (typeof CACHE_RESULTS)[number];

/** Results that cost GitHub nothing for this caller. */
export function isFreeResult(result: CacheResult): boolean {
  return (
    result === "HIT" || result === "STALE" || result === "STALE_REVALIDATING" || result === "REVALIDATED"
  );
}

/** Who is asking. Built by the gateway from a session or invocation token; never holds the token. */
export interface Caller {
  readonly sessionId: string;
  readonly projectId?: string | undefined;
  readonly issueId?: string | undefined;
  /** Set when the request came with a per-invocation token (one gh command). */
  readonly invocationId?: string | undefined;
  /** argv summary of the invocation, e.g. "gh pr checks 12". */
  readonly command?: string | undefined;
  /** AO's operation name for it, e.g. "gh.pr.checks" (bounded vocabulary for metrics). */
  readonly operation?: string | undefined;
  readonly readOnly: boolean;
  /** Fair-share weight. @defaultValue 1 */
  readonly weight: number;
  /** Parent budget it shares fair share with (auto-registered sessions; docs/decisions/0008). */
  readonly budgetGroup?: string | undefined;
}

export type { GraphQLPayload };

/** One caller sharing an upstream call, and the basis its share of the cost is computed from. */
export interface CostParticipant {
  readonly sessionId: string;
  readonly basis: number;
}

/**
 * The callers sharing one upstream call. Only the layer that owns the list changes it (coalescing:
 * followers join the leader's flight; batching: a merged query's members, each with its own
 * followers); the layers below read it through `participants()`, a frozen snapshot as of the call,
 * so the budget layer splits the real cost among whoever shared the call when it settles.
 */
export interface CostSharing {
  participants(): readonly CostParticipant[];
}

/** A sharing list that never changes (a merged query's members, a request alone). */
export function fixedSharing(participants: readonly CostParticipant[]): CostSharing {
  const frozen = Object.freeze(participants.map((p) => Object.freeze({ ...p })));
  return { participants: () => frozen };
}

/** Each participant's share of `cost`, proportional to its basis. */
export function splitCost(
  participants: readonly CostParticipant[],
  cost: number,
): { sessionId: string; cost: number }[] {
  const total = participants.reduce((sum, p) => sum + p.basis, 0);
  return participants.map((p) => ({
    sessionId: p.sessionId,
    cost: total > 0 ? (cost * p.basis) / total : 0,
  }));
}

export interface CacheContext {
  /** The stored answer, when there was one (stale or invalidated). */
  readonly answer: CachedAnswer | undefined;
  /** Tag generations read before the upstream call. */
  readonly generations: Readonly<Record<string, number>>;
  /** Validators from `answer` were attached to the request. */
  readonly revalidating: boolean;
}

/**
 * What layers hand the layers below them, set on the way down (a layer passes `{ ...request, … }`
 * to `next`) and never by an edge. The only fields of a GhRequest that change after it is built;
 * everything else is decided once by buildApiRequest (api-request.ts).
 *
 * | field | set by | read by |
 * |---|---|---|
 * | `staleAvailable` | cache layer | budget layer (asks `tryAdmit`, and answers `wouldWait` instead of waiting); coalescing (a follower without it never takes a leader's `wouldWait`) |
 * | `cacheContext` | cache layer | coalescing (its key), cache fill layer (below coalescing) |
 * | `sharing` | coalescing (the leader's flight; followers join the flight's own list), batching (a merged query: a view over its members' views) | batching (a member's followers), budget layer (`participants()` when it settles, to split the cost) |
 *
 * Layers answer with a GhResponse, never with an exception, for what is not an error: a budget
 * that would wait while a stale answer exists comes back up as a response with `wouldWait`
 * (`wouldWaitResponse`), which the cache layer turns into STALE and nothing stores.
 */
export interface RequestContext {
  /** Set by the cache layer: a stale answer the caller accepts exists, so the budget layer does not wait for it. */
  readonly staleAvailable?: boolean | undefined;
  /** Set by the cache layer for the fill layer below coalescing: what to store, or to refresh on a 304. */
  readonly cacheContext?: CacheContext | undefined;
  /** Set by coalescing and batching: who shares this request's upstream cost (read-only below them). */
  readonly sharing?: CostSharing | undefined;
}

export interface GhRequest extends RequestContext {
  /** Unique per request; used for coalescing followers, tracing and logs. */
  readonly id: string;
  /** Upper-case HTTP method. */
  readonly method: string;
  /** Path and query as GitHub sees it: `/repos/o/r/pulls/1?per_page=1`, `/graphql`. */
  readonly path: string;
  /** Lower-case names. Hop-by-hop headers and Authorization are already removed. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer | undefined;
  /** Present for POST /graphql with a well-formed JSON body. */
  readonly graphql?: GraphQLPayload | undefined;
  readonly caller: Caller;
  /** What the request is, decided once at the gateway (see classify.ts). */
  readonly classification: RequestClass;
  readonly priority: PriorityClass;
  /** Epoch ms after which the caller prefers an error (in GitHub's shape) to more waiting. */
  readonly deadlineAt: number;
  /** The caller accepts a stale cached answer when the budget is spent. */
  readonly allowStale: boolean;
  /**
   * The broker's own refresh of an answer agents read (decision 0014): never served from the
   * cache, stored under the new generations, batched within the refresh window.
   */
  readonly refresh?: boolean | undefined;
  readonly receivedAt: number;
}

export interface GhResponse {
  readonly status: number;
  /** Lower-case names, as GitHub sent them (minus hop-by-hop). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly cache: CacheResult;
  /** Points (GraphQL) or requests (REST) charged to this caller. */
  readonly cost: number;
  readonly resource: RateLimitResource;
  /** Time spent waiting for budget or queue, ms. */
  readonly waitedMs?: number | undefined;
  /** What GitHub charged for the upstream call behind this answer (before any split). */
  readonly upstreamCost?: number | undefined;
  /** GitHub's rate-limit report carried by the upstream answer behind this response. */
  readonly rateLimit?: RateLimitSnapshot | undefined;
  /** Callers that shared the upstream call (coalesced or batched), this one included. */
  readonly sharedBy?: number | undefined;
  /**
   * Set only by the budget layer, for a request whose context said a stale answer is available:
   * the budget would wait until `retryAt`, so nothing went upstream. Not an answer: the cache
   * layer serves the stale answer in its place, and no layer stores or publishes it.
   */
  readonly wouldWait?: { readonly retryAt: number } | undefined;
}

/** The budget layer's "would wait" (see GhResponse.wouldWait): no body, nothing charged. */
export function wouldWaitResponse(request: GhRequest, retryAt: number): GhResponse {
  return {
    status: 429,
    headers: {},
    body: Buffer.alloc(0),
    cache: "MISS",
    cost: 0,
    resource: request.classification.resource,
    wouldWait: { retryAt },
  };
}

export type Handler = (request: GhRequest) => Promise<GhResponse>;
export type Layer = (next: Handler) => Handler;

export function composeLayers(layers: readonly Layer[], terminal: Handler): Handler {
  return layers.reduceRight<Handler>((next, layer) => layer(next), terminal);
}
