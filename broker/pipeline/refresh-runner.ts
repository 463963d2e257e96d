/**
 * Refresh once, for everyone (decision 0014). When a signal (a lifecycle guard, a webhook) or a
 * write through this broker moves tags, the answers agents recently read that depend on them are
 * fetched again ONCE, by the broker that moved the tags, so every agent's next read is a HIT:
 *
 * 1. The cache tells this runner what moved (ResponseCache.onInvalidated: each tag's generation
 *    before and after).
 * 2. The registry (cache/refresh-registry.ts) names the recently read keys under those tags.
 *    For a signal's moves a pending-refresh marker is written at once, so agents reading one of
 *    those keys meanwhile are served the cached answer as STALE_REVALIDATING (never for a write:
 *    core/serve-decision.ts checks that only the signal moved the answer's tags).
 * 3. After `windowMs` (everything moved in one lifecycle cycle, or one burst of writes, lands in
 *    the same window), the plan (cache/core/refresh-plan.ts) is replayed through the whole
 *    pipeline as the lifecycle's session, priority interactive, marked `refresh`: the cache layer
 *    never serves it, attaches the stored ETag to REST reads (a conditional GET: a 304 re-stores
 *    the answer under the new generations for free), and the batching layer merges every GraphQL
 *    variant of every moved object into one aliased query (broker/batch merge-queries and
 *    split-response) within the refresh window. Answers are stored under the generations read
 *    just before, as for any read. Spend is admitted and charged like any request (the budget
 *    layer), to the lifecycle's session, and shows in its stats and in the upstream-read metrics
 *    with reason `refresh`.
 * 4. A refresh that fails clears its markers, so agents go upstream rather than wait out the
 *    stale window on an answer nobody is fetching.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "../../common/index.js";
import { type PlannedRefresh, planRefresh, type RegistryHit } from "../cache/core/refresh-plan.js";
import { addMoves, type PendingRefresh } from "../cache/core/serve-decision.js";
import type { RefreshRegistry } from "../cache/refresh-registry.js";
import type { Invalidation, ResponseCache } from "../cache/response-cache.js";
import { UPSTREAM_DEFAULTS } from "../upstream/upstream-settings.js";
import type { ClassifyInput, RequestClass } from "./classify.js";
import type { Caller, GhRequest, GhResponse, Handler } from "./types.js";

/** The lifecycle's session (lifecycle-ports.ts LIFECYCLE_SESSION_ID): the broker's own spend. */
export const REFRESH_CALLER: Caller = {
  sessionId: "ao-lifecycle",
  readOnly: true,
  weight: 1,
  command: "ao refresh",
  operation: "ao.refresh",
};

export interface RefreshRunnerOptions {
  readonly cache: ResponseCache;
  readonly registry: RefreshRegistry;
  /** The whole pipeline (cache layer first); the runner's requests go through it like anyone's. */
  readonly pipeline: Handler;
  readonly classify: (input: ClassifyInput) => RequestClass;
  readonly logger: Logger;
  /** How long moves are collected before one refresh is sent. */
  readonly windowMs: number;
  /** Only answers read this recently are refreshed. */
  readonly recentReadMs: number;
  /** At most this many answers per refresh. */
  readonly maxAnswers: number;
  /** How long a pending marker lets the cached answer be served (0: no stale serving). */
  readonly staleWhileRevalidateMs: number;
  /**
   * Longest a hold (hold()) keeps collected moves back before they are sent anyway; 0 turns
   * holding off (hold() then changes nothing). Keep it well under staleWhileRevalidateMs: agents
   * are served the stale answer meanwhile.
   */
  readonly maxHoldMs: number;
  /** @defaultValue 30000 */
  readonly deadlineMs?: number;
  /** Runs a request inside the broker's instrumentation and accounting. */
  readonly run?: (request: GhRequest, send: () => Promise<GhResponse>) => Promise<GhResponse>;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

export interface RefreshStats {
  /** Refresh rounds sent. */
  readonly rounds: number;
  /** Answers fetched again (GraphQL and REST), by a request of the refresh's own. */
  readonly answers: number;
  readonly graphqlAnswers: number;
  readonly restAnswers: number;
  /** Registered answers not refreshed (read too long ago, no replay, over maxAnswers). */
  readonly skipped: number;
  /** Planned, but already fetched again since the move (by an agent's own read): not sent. */
  readonly alreadyCurrent: number;
  /** Joined a read of the same answer already in flight (an agent's): no request of its own. */
  readonly coalesced: number;
  readonly failed: number;
}

/**
 * A poll cycle's hold on the refresh (decision 0025): what the cycle moves is sent in as few
 * documents as possible, the moves collected so far riding with the cycle's own enrichment query.
 */
export interface RefreshHold {
  /**
   * Sends what has been collected now (resolves once its requests are submitted, not answered),
   * so it merges with the query the caller sends next; the hold stays.
   */
  flush(): Promise<void>;
  /** Ends the hold: sends what has been collected since (at once when no other hold is left). */
  release(): Promise<void>;
}

export class RefreshRunner {
  readonly #o: RefreshRunnerOptions;
  readonly #now: () => number;
  /** Keys waiting for the next round, with the moved tags found for them. */
  #queue = new Map<string, RegistryHit>();
  /** Markers this broker wrote and has not yet refreshed (to merge consecutive signals). */
  readonly #pending = new Map<string, PendingRefresh>();
  readonly #work = new Set<Promise<unknown>>();
  #timer: NodeJS.Timeout | undefined;
  /** Holds open (hold()); while any is, moves wait for a flush, a release or maxHoldMs. */
  #holds = 0;
  #holdTimer: NodeJS.Timeout | undefined;
  /** Collections in flight (registry look-ups): a flush waits for them. */
  readonly #collecting = new Set<Promise<unknown>>();
  #unsubscribe: (() => void) | undefined;
  #closed = false;
  #stats = {
    rounds: 0,
    answers: 0,
    graphqlAnswers: 0,
    restAnswers: 0,
    skipped: 0,
    alreadyCurrent: 0,
    coalesced: 0,
    failed: 0,
  };

  constructor(options: RefreshRunnerOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  start(): void {
    this.#unsubscribe = this.#o.cache.onInvalidated((invalidation) => {
      const collecting = this.#collect(invalidation);
      this.#collecting.add(collecting);
      void collecting.catch(() => undefined).finally(() => this.#collecting.delete(collecting));
      this.#track(collecting);
    });
  }

  /**
   * Holds the moves collected from now on until flush() or release() (or maxHoldMs after the first
   * of them, whichever comes first), instead of sending them windowMs after they came: a poll
   * cycle's moves then leave in one round, and the round can ride with the cycle's own query.
   */
  hold(): RefreshHold {
    if (this.#o.maxHoldMs <= 0 || this.#closed) return { flush: async () => {}, release: async () => {} };
    this.#holds += 1;
    let released = false;
    return {
      flush: () => (released ? Promise.resolve() : this.#flushCollected()),
      release: async () => {
        if (released) return;
        released = true;
        this.#holds -= 1;
        if (this.#holds === 0) await this.#flushCollected();
      },
    };
  }

  /** Waits for the collections in flight, then submits everything queued (timers cancelled). */
  async #flushCollected(): Promise<void> {
    while (this.#collecting.size > 0) await Promise.allSettled([...this.#collecting]);
    if (this.#closed || this.#queue.size === 0) return;
    this.#clearTimers();
    await this.#flush();
  }

  #clearTimers(): void {
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#holdTimer) clearTimeout(this.#holdTimer);
    this.#timer = undefined;
    this.#holdTimer = undefined;
  }

  get stats(): RefreshStats {
    return { ...this.#stats };
  }

  /** Resolves once everything collected so far has been refreshed (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.#work.size > 0 || this.#timer || this.#holdTimer) {
      if (this.#timer || this.#holdTimer) {
        this.#clearTimers();
        this.#track(this.#flush());
      }
      await Promise.allSettled([...this.#work]);
    }
  }

  async close(): Promise<void> {
    this.#unsubscribe?.();
    this.#closed = true;
    this.#clearTimers();
    this.#queue.clear();
    await Promise.allSettled([...this.#work]);
  }

  #track(promise: Promise<unknown>): void {
    const tracked = promise.catch((error: unknown) => {
      this.#o.logger.warn({ err: error }, "refresh failed");
    });
    this.#work.add(tracked);
    void tracked.finally(() => this.#work.delete(tracked));
  }

  async #collect(invalidation: Invalidation): Promise<void> {
    if (this.#closed) return;
    const hits = await this.#o.registry.find(Object.keys(invalidation.moves));
    if (hits.length === 0 || this.#closed) return;
    const markers: { hashed: string; pending: PendingRefresh }[] = [];
    for (const hit of hits) {
      const queued = this.#queue.get(hit.hashed);
      this.#queue.set(
        hit.hashed,
        queued
          ? {
              ...hit,
              readAt: Math.max(hit.readAt, queued.readAt),
              tags: [...new Set([...queued.tags, ...hit.tags])],
            }
          : hit,
      );
      if (invalidation.origin !== "signal" || this.#o.staleWhileRevalidateMs <= 0) continue;
      const moves: Record<string, readonly [number, number]> = {};
      for (const tag of hit.tags) {
        const move = invalidation.moves[tag];
        if (move) moves[tag] = move;
      }
      const pending = addMoves(this.#pending.get(hit.hashed), invalidation.at, moves);
      this.#pending.set(hit.hashed, pending);
      markers.push({ hashed: hit.hashed, pending });
    }
    await this.#o.registry.markPending(markers, this.#o.staleWhileRevalidateMs);
    if (this.#closed || this.#queue.size === 0) return;
    if (this.#holds > 0) {
      // Held (a poll cycle is running): sent by its flush or release, never later than maxHoldMs.
      if (!this.#holdTimer && !this.#timer) {
        this.#holdTimer = setTimeout(() => {
          this.#holdTimer = undefined;
          this.#track(this.#flush());
        }, this.#o.maxHoldMs);
        this.#holdTimer.unref();
      }
      return;
    }
    if (!this.#timer && !this.#closed) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#track(this.#flush());
      }, this.#o.windowMs);
      this.#timer.unref();
    }
  }

  async #flush(): Promise<void> {
    const hits = [...this.#queue.values()];
    this.#queue = new Map();
    if (hits.length === 0 || this.#closed) return;
    const plan = planRefresh(hits, {
      now: this.#now(),
      recentReadMs: this.#o.recentReadMs,
      maxAnswers: this.#o.maxAnswers,
    });
    this.#stats.rounds += 1;
    this.#stats.skipped += plan.skipped;
    // Markers of keys left out would only keep agents on a stale answer nobody fetches.
    const planned = new Set([...plan.graphql, ...plan.rest].map((p) => p.hashed));
    const dropped = hits.map((h) => h.hashed).filter((h) => !planned.has(h));
    await this.#release(dropped, new Map(dropped.map((h) => [h, this.#pending.get(h)])));
    // Every request is submitted in the same tick: the batcher merges the GraphQL ones (and the
    // query a hold's flush() is followed by). Answers are awaited apart: flush() resolves now.
    this.#track(Promise.all([...plan.graphql, ...plan.rest].map((p) => this.#refreshOne(p))));
  }

  async #refreshOne(planned: PlannedRefresh): Promise<void> {
    const marker = this.#pending.get(planned.hashed);
    let ok = false;
    try {
      const request = this.#request(planned);
      const send = () => this.#o.pipeline(request);
      const response = await (this.#o.run ? this.#o.run(request, send) : send());
      ok = response.status < 400;
      if (response.cache === "HIT") this.#stats.alreadyCurrent += 1;
      else if (response.cache === "COALESCED") this.#stats.coalesced += 1;
      else if (ok) {
        this.#stats.answers += 1;
        if (planned.spec.graphql) this.#stats.graphqlAnswers += 1;
        else this.#stats.restAnswers += 1;
      } else this.#stats.failed += 1;
    } catch (error) {
      this.#stats.failed += 1;
      this.#o.logger.debug({ err: error, key: planned.hashed }, "refreshing an answer failed");
    }
    await this.#release([planned.hashed], new Map([[planned.hashed, marker]]));
  }

  /** Forgets markers that no newer signal replaced while the refresh ran, and clears them in Redis. */
  async #release(
    hashes: readonly string[],
    seen: ReadonlyMap<string, PendingRefresh | undefined>,
  ): Promise<void> {
    const done = hashes.filter((h) => this.#pending.get(h) === seen.get(h));
    for (const h of done) this.#pending.delete(h);
    const cleared = done.filter((h) => seen.get(h) !== undefined);
    if (cleared.length > 0) await this.#o.registry.clearPending(cleared);
  }

  #request(planned: PlannedRefresh): GhRequest {
    const { spec } = planned;
    const headers: Record<string, string> = { ...spec.headers };
    if (spec.graphql) headers["content-type"] = "application/json";
    const graphql = spec.graphql
      ? {
          query: spec.graphql.query,
          variables: { ...spec.graphql.variables } as Record<string, unknown>,
          operationName: spec.graphql.operationName,
        }
      : undefined;
    const now = this.#now();
    return {
      id: randomUUID(),
      method: spec.method,
      path: spec.path,
      headers,
      body: graphql
        ? Buffer.from(
            JSON.stringify({
              query: graphql.query,
              variables: graphql.variables,
              ...(graphql.operationName ? { operationName: graphql.operationName } : {}),
            }),
          )
        : undefined,
      graphql,
      caller: REFRESH_CALLER,
      classification: this.#o.classify({ method: spec.method, path: spec.path, headers, graphql }),
      priority: "interactive",
      deadlineAt: now + (this.#o.deadlineMs ?? UPSTREAM_DEFAULTS.timeoutMs),
      allowStale: false,
      refresh: true,
      receivedAt: now,
    };
  }
}
