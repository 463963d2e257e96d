/**
 * Serves reads from the shared cache and keeps it honest about writes.
 *
 * Two layers share this file: cacheLayer (lookup, above coalescing) and cacheFillLayer (storing,
 * below it). Reads (cacheable):
 *   fresh (within freshMs and no tag moved)      → HIT, no upstream call, free
 *   final (finished CI: cache/core/final-      → HIT for finalAnswerMs whatever moved; never
 *     answers.ts), its kept tags current            registered for refresh
 *   vouched for within guardedFreshMs (GraphQL    → HIT: free signals (the lifecycle's guards,
 *     or REST about watched PRs, a repository's      304s) saw nothing change since, and would
 *     lists and issues)                              have bumped the tags if they had
 *   moved only by a signal whose refresh is       → STALE_REVALIDATING: the refresh (refresh-runner.ts)
 *     pending, within staleWhileRevalidateMs         brings the new answer for everyone (0014)
 *   stale REST with a validator (ETag/Last-Mod.)  → conditional request; 304 → REVALIDATED, free
 *   stale otherwise                               → MISS through the rest of the pipeline
 * (the decision is cache/core/serve-decision.ts's; an answer that went upstream carries
 * x-ao-broker-upstream-reason and is counted in ao_broker.upstream.reads by that reason).
 *   budget spent and the caller accepts stale     → STALE (this layer marks a stale answer as
 *                                                   available; the budget layer, rather than wait,
 *                                                   returns a `wouldWait` response, stored by none)
 * A client's own If-None-Match is honoured: an answer whose ETag matches becomes a 304 to it.
 * Only 2xx answers are stored, and GraphQL answers carrying `errors` are not ("errors are never
 * cached"). Generations are captured before the upstream call, so an answer that raced with a
 * write is stored as already stale.
 * Writes: after a successful write, exactly the (object, facet) tags it changes are bumped (through
 * the global ids and head branches learned from earlier answers), so every broker's next read of
 * what moved goes upstream and nothing else does (docs/caching.md). A write's moves are never
 * served stale, to anyone: read-your-writes.
 * Every agent read (hit or not) is registered for refresh-once, throttled per key.
 */
import type { Logger } from "../../common/index.js";
import { actionsRunsTag, actionsRunTag, type Tag } from "../cache/core/facets.js";
import { completedJobIds, completedJobKey, isFinalAnswer } from "../cache/core/final-answers.js";
import { learnIds } from "../cache/core/graphql-analysis.js";
import { replaySpec } from "../cache/core/refresh-plan.js";
import { aliasesNeeded, resolveWrite } from "../cache/core/resolve-write.js";
import { answerFromPage, parseRunsPageBody, type RunsRead, runsRead } from "../cache/core/runs-page.js";
import { decideServe, type UpstreamReason } from "../cache/core/serve-decision.js";
import type { RefreshRegistry } from "../cache/refresh-registry.js";
import { type CachedAnswer, ResponseCache } from "../cache/response-cache.js";
import { storableHeaders } from "./http-headers.js";
import type { CacheResult, GhRequest, GhResponse, Layer } from "./types.js";

export interface CacheLayerOptions {
  readonly cache: ResponseCache;
  readonly logger: Logger;
  /** @defaultValue Date.now */
  readonly now?: () => number;
  /** Where agents' reads are registered for refresh-once (decision 0014); omitted: none. */
  readonly registry?: RefreshRegistry | undefined;
  /**
   * How long after a signal moved an answer's tags it may still be served (labelled
   * STALE_REVALIDATING) while its refresh is pending; 0 (or no registry) turns it off.
   */
  readonly staleWhileRevalidateMs?: number | undefined;
  /** Told of every upstream read this layer caused, with its reason and whether the body was new. */
  readonly onUpstreamRead?: ((read: UpstreamRead) => void) | undefined;
  /**
   * The factor a vouch's reach (guardedFreshMs) is stretched by now: above 1 while webhooks arrive
   * (cache/webhook-liveness.ts; decision 0021), since every change a delivery reports has moved
   * its answers already and the guards that vouch run that much less often. Omitted: 1.
   */
  readonly vouchStretch?: (() => number) | undefined;
}

/** One read that went to GitHub, for the `ao_broker.upstream.reads` / `read_points` metrics. */
export interface UpstreamRead {
  readonly reason: UpstreamReason;
  /** The new body equals the answer stored before for the same key (a 304 counts as identical). */
  readonly identical: boolean;
  /** What GitHub charged for it (this read's share of a merged query). */
  readonly points: number;
  readonly resource: string;
}

/** The header naming why an answer did not come from the cache. */
export const UPSTREAM_REASON_HEADER = "x-ao-broker-upstream-reason";

const FROM_UPSTREAM = new Set<CacheResult>(["MISS", "BATCHED", "REVALIDATED", "BYPASS"]);

function withReason(response: GhResponse, reason: UpstreamReason): GhResponse {
  if (!FROM_UPSTREAM.has(response.cache) && response.cache !== "COALESCED") return response;
  return { ...response, headers: { ...response.headers, [UPSTREAM_REASON_HEADER]: reason } };
}

/** JSON text without formatting differences (a merged query's split answer is re-serialised). */
function canonicalJson(body: Buffer): string | undefined {
  try {
    return JSON.stringify(JSON.parse(body.toString("utf8")));
  } catch {
    return undefined;
  }
}

function sameBody(previous: CachedAnswer | undefined, response: GhResponse): boolean {
  if (response.status === 304 || response.cache === "REVALIDATED") return true;
  if (!previous || previous.status !== response.status) return false;
  if (previous.body.equals(response.body)) return true;
  const before = canonicalJson(previous.body);
  return before !== undefined && before === canonicalJson(response.body);
}

function answerToResponse(
  request: GhRequest,
  answer: CachedAnswer,
  cache: CacheResult,
  extraHeaders?: Readonly<Record<string, string>>,
): GhResponse {
  const clientEtag = request.headers["if-none-match"];
  const headers = { ...answer.headers, ...(extraHeaders ? storableHeaders(extraHeaders) : {}) };
  if (clientEtag && headers.etag && clientEtag === headers.etag) {
    return {
      status: 304,
      headers,
      body: Buffer.alloc(0),
      cache,
      cost: 0,
      resource: request.classification.resource,
    };
  }
  return {
    status: answer.status,
    headers,
    body: answer.body,
    cache,
    cost: 0,
    resource: request.classification.resource,
  };
}

function isStorable(request: GhRequest, response: GhResponse): boolean {
  if (response.status < 200 || response.status >= 300) return false;
  if (request.classification.kind === "graphql-query") {
    // Cheap scan first: only answers mentioning "errors" are parsed to check.
    if (response.body.includes('"errors"')) {
      try {
        const parsed = JSON.parse(response.body.toString("utf8")) as { errors?: unknown };
        if (parsed.errors !== undefined) return false;
      } catch {
        return false;
      }
    }
  }
  return true;
}

/** A 200 whose ETag the client already holds becomes a 304 to that client. */
function honourClientValidator(request: GhRequest, response: GhResponse): GhResponse {
  const clientEtag = request.headers["if-none-match"];
  if (response.status !== 200 || !clientEtag || response.headers.etag !== clientEtag) return response;
  return { ...response, status: 304, body: Buffer.alloc(0) };
}

/**
 * Looks answers up, serves hits and stale answers, attaches validators for revalidation, and
 * invalidates after writes. Storing happens further down (cacheFillLayer), inside the coalesced
 * flight, so no request can slip between a leader's answer and its arrival in the cache.
 */
export function cacheLayer(options: CacheLayerOptions): Layer {
  const { cache, logger, registry } = options;
  const now = options.now ?? Date.now;
  const swrMs = registry ? (options.staleWhileRevalidateMs ?? 0) : 0;

  const count = (
    request: GhRequest,
    response: GhResponse,
    reason: UpstreamReason,
    previous?: CachedAnswer,
  ) => {
    if (!options.onUpstreamRead || !FROM_UPSTREAM.has(response.cache)) return;
    options.onUpstreamRead({
      reason,
      identical: sameBody(previous, response),
      points: response.upstreamCost ?? response.cost,
      resource: response.resource ?? request.classification.resource,
    });
  };

  /** Registers an agent's read for refresh-once (fire and forget, throttled per key). */
  const noteRead = (request: GhRequest, hashed: string) => {
    if (!registry || request.refresh || request.priority === "lifecycle") return;
    const spec = replaySpec(request);
    if (!spec) return;
    registry.noteRead(hashed, spec, request.classification.reads).catch((error: unknown) => {
      logger.debug({ err: error, requestId: request.id }, "registering a read for refresh failed");
    });
  };

  return (next) => async (request) => {
    const c = request.classification;

    if (c.writeEffect) {
      const effect = c.writeEffect;
      const response = await next(request);
      if (response.status < 400) {
        try {
          // Exactly the (object, facet) pairs the write changed (core/resolve-write.ts).
          const aliases = await cache.aliases(aliasesNeeded(effect));
          await cache.invalidate([...c.writes, ...resolveWrite(effect, aliases)], { origin: "write" });
        } catch (error) {
          logger.warn({ err: error, requestId: request.id }, "cache invalidation after a write failed");
        }
      }
      return response;
    }
    // The lifecycle's own reads are the signals; the refresher's are refreshes.
    const own: UpstreamReason | undefined = request.refresh
      ? "refresh"
      : request.priority === "lifecycle"
        ? "signal"
        : undefined;
    if (!c.cacheable) {
      const reason = own ?? "bypass";
      const response = await next(request);
      count(request, response, reason);
      return withReason(response, reason);
    }

    if (!request.refresh) {
      const local = cache.localFresh(c.cacheKey, c.freshMs);
      if (local) {
        noteRead(request, local.hashed);
        return answerToResponse(request, local.answer, "HIT");
      }
    }

    let lookup: Awaited<ReturnType<ResponseCache["lookup"]>>;
    try {
      lookup = await cache.lookup(c.cacheKey, c.reads, c.vouchGroups ?? [], {
        // Only agents are served while a refresh is pending: the lifecycle's reads are the signal.
        pending: swrMs > 0 && !own,
      });
    } catch (error) {
      // The cache is an optimisation: without Redis the request still goes upstream.
      logger.warn({ err: error, requestId: request.id }, "cache lookup failed; going upstream");
      return next(request);
    }
    const answer = lookup.answer;
    const t = now();
    // Finished CI never changes: a final answer is served whatever moved, and is not registered
    // for refresh (cache/core/final-answers.ts).
    if (c.final && answer?.final && lookup.tagsCurrent && t - answer.storedAt < c.final.ttlMs)
      return answerToResponse(request, answer, "HIT");
    if (!own && c.guardedFreshMs > 0 && !(answer && lookup.tagsCurrent && t - answer.storedAt < c.freshMs)) {
      // Past plain freshness: tell the lifecycle this PR is being read, so its guards keep the
      // vouches for it recent. A twentieth of the vouch window keeps the marks cheap.
      cache.noteAgentRead(c.vouchTags, c.guardedFreshMs / 20).catch((error: unknown) => {
        logger.debug({ err: error, requestId: request.id }, "noting an agent read failed");
      });
    }
    const validator = c.kind === "rest-read" && answer ? answer.headers.etag : undefined;
    const lastModified = c.kind === "rest-read" && answer ? answer.headers["last-modified"] : undefined;
    const decision = decideServe({
      now: t,
      answer,
      generations: lookup.generations,
      freshMs: c.freshMs,
      guardedFreshMs: c.guardedFreshMs * (options.vouchStretch?.() ?? 1),
      vouchedAt: lookup.vouchedAt,
      vouchable: c.vouchGroups !== undefined,
      conditional: !!(validator || lastModified),
      pending: lookup.pending,
      staleWhileRevalidateMs: swrMs,
      clientConditional: request.headers["if-none-match"] !== undefined,
    });
    if (!own) noteRead(request, ResponseCache.hashKey(c.cacheKey));
    // Someone fetched it again since it moved (an agent's own miss after a write): nothing to do.
    if (request.refresh && answer && lookup.tagsCurrent) return answerToResponse(request, answer, "HIT");
    // A refresh never serves what it is refreshing; everyone else may be served.
    if (!request.refresh && answer && "serve" in decision)
      return answerToResponse(request, answer, decision.serve);
    const reason: UpstreamReason = own ?? ("upstream" in decision ? decision.upstream : "moved");

    const downstream: GhRequest = {
      ...request,
      staleAvailable: answer !== undefined && request.allowStale,
      cacheContext: { answer, generations: lookup.generations, revalidating: !!(validator || lastModified) },
      headers:
        validator || lastModified
          ? {
              ...request.headers,
              ...(validator ? { "if-none-match": validator } : {}),
              ...(lastModified ? { "if-modified-since": lastModified } : {}),
            }
          : request.headers,
    };

    const response = await next(downstream);
    // The budget would have made it wait: the caller accepted the stale answer instead (nothing went upstream).
    if (response.wouldWait && answer) return answerToResponse(request, answer, "STALE");
    count(request, response, reason, answer);
    return withReason(honourClientValidator(request, response), reason);
  };
}

/** The completed-job marker an annotations read depends on, when the request is one. */
function annotationsJobKey(c: GhRequest["classification"]): string | undefined {
  const endpoint = c.final?.endpoint;
  return endpoint?.kind === "annotations"
    ? completedJobKey(endpoint.owner, endpoint.name, endpoint.id)
    : undefined;
}

/** The answer as it is stored: final (following no tag) when it says so. */
function finalize(
  c: GhRequest["classification"],
  answer: CachedAnswer,
  jobCompletedBefore: boolean,
): CachedAnswer {
  if (!c.final) return answer;
  if (!isFinalAnswer(c.final.endpoint, { status: answer.status, body: answer.body, jobCompletedBefore }))
    return answer;
  return { ...answer, final: true, generations: {} };
}

/** Remembers the jobs an answer showed completed (for their annotations); never fails the read. */
async function noteCompletedJobs(
  cache: ResponseCache,
  request: GhRequest,
  answer: { readonly status: number; readonly body: Buffer },
): Promise<void> {
  const repo = request.classification.repo;
  if (!repo || request.classification.kind !== "rest-read") return;
  const ids = completedJobIds(request.path, answer.status, answer.body);
  if (ids.length === 0) return;
  await cache
    .markJobsCompleted(ids.map((id) => completedJobKey(repo.owner, repo.name, id)))
    .catch(() => undefined);
}

/**
 * A run's record or a branch's run list built from the runs page the Actions guard read
 * (cache/core/runs-page.ts), stored like a fetched answer and served as a HIT; undefined when the
 * held page cannot answer (too old, a tag moved since, the run not on it, the page cut).
 */
async function fromRunsPage(
  cache: ResponseCache,
  request: GhRequest,
  read: RunsRead,
  at: number,
): Promise<GhResponse | undefined> {
  const context = request.cacheContext;
  const held = cache.runsPage(read.repo);
  if (!context || !held) return undefined;
  const c = request.classification;
  const outcome = answerFromPage({
    read,
    held,
    generations: Object.fromEntries(c.reads.map((t) => [t, context.generations[t] ?? 0])),
    storedAt: context.answer?.storedAt ?? 0,
    stored:
      read.kind === "branch" && context.answer?.status === 200
        ? parseRunsPageBody(context.answer.body)
        : undefined,
    now: at,
    maxAgeMs: c.guardedFreshMs,
  });
  if (!("body" in outcome)) return undefined;
  const answer: CachedAnswer = {
    status: 200,
    headers: { "content-type": held.contentType },
    body: Buffer.from(outcome.body, "utf8"),
    storedAt: at,
    generations: context.generations,
  };
  await cache.store(c.cacheKey, answer).catch(() => false);
  return answerToResponse(request, answer, "HIT");
}

/**
 * Holds the runs page a 200 (or a 304 of the stored one) showed, with the generations of every tag
 * an answer derived from it reads; forgets it when a tag it read moved while it was in flight.
 */
async function holdRunsPage(
  cache: ResponseCache,
  request: GhRequest,
  repo: string,
  response: GhResponse,
  sentAt: number,
): Promise<void> {
  const context = request.cacheContext;
  const source = response.status === 200 ? response : response.status === 304 ? context?.answer : undefined;
  const body = source ? parseRunsPageBody(source.body) : undefined;
  const [owner = "", name = ""] = repo.split("/");
  if (!context || !source || !body) {
    if (response.status < 500) cache.holdRunsPage(repo, undefined);
    return;
  }
  const tags = new Set<Tag>(request.classification.reads);
  for (const run of body.workflow_runs) {
    tags.add(actionsRunTag(owner, name, run.id));
    if (typeof run.head_branch === "string") tags.add(actionsRunsTag(owner, name, run.head_branch));
  }
  try {
    const generations = await cache.generations([...tags]);
    const still = request.classification.reads.every(
      (t) => (generations[t] ?? 0) === (context.generations[t] ?? 0),
    );
    cache.holdRunsPage(
      repo,
      still
        ? {
            body,
            etag: source.headers.etag,
            contentType: source.headers["content-type"] ?? "application/json; charset=utf-8",
            sentAt,
            confirmedAt: sentAt,
            generations,
          }
        : undefined,
    );
  } catch {
    cache.holdRunsPage(repo, undefined);
  }
}

/**
 * Stores fresh answers and turns a revalidation's 304 back into the stored answer (REVALIDATED,
 * free). Sits below coalescing so followers of a flight receive the same full answer and the
 * entry is in Redis before the flight ends.
 */
export function cacheFillLayer(options: CacheLayerOptions): Layer {
  const { cache, logger } = options;
  const now = options.now ?? Date.now;

  return (next) => async (request) => {
    const context = request.cacheContext;
    if (!context) return next(request);
    const c = request.classification;
    // This request missed the cache before it became a flight's leader; another flight may have
    // stored a fresh answer in between (its lookup and ours raced). Look once more before paying.
    try {
      const again = await cache.lookup(c.cacheKey, c.reads);
      const fresh = again.answer;
      if (
        fresh &&
        again.tagsCurrent &&
        now() - fresh.storedAt < c.freshMs &&
        fresh.storedAt > (context.answer?.storedAt ?? 0)
      ) {
        return answerToResponse(request, fresh, "HIT");
      }
    } catch {
      // Without Redis the request simply goes upstream.
    }
    // Annotations are final only when their check run was known finished before they were asked for.
    const jobKey = annotationsJobKey(c);
    let jobCompletedBefore = false;
    if (jobKey) jobCompletedBefore = await cache.jobCompleted(jobKey).catch(() => false);
    const runs = c.kind === "rest-read" && request.method === "GET" ? runsRead(request.path) : undefined;
    if (runs && runs.kind !== "page" && request.priority !== "lifecycle") {
      const derived = await fromRunsPage(cache, request, runs, now());
      if (derived) return derived;
    }
    const sentAt = now();
    const response = await next(request);
    if (runs?.kind === "page") await holdRunsPage(cache, request, runs.repo, response, sentAt);
    // Not an answer: the budget would wait and the cache layer above serves its stale one.
    if (response.wouldWait) return response;
    if (response.status >= 200 && response.status < 300) await noteCompletedJobs(cache, request, response);
    if (response.status === 304 && context.answer && context.revalidating) {
      // GitHub says the resource is unchanged: the stored answer is current again (even if a tag
      // moved, the resource it describes did not), so it is re-stored under today's generations.
      const refreshed: CachedAnswer = finalize(
        c,
        {
          ...context.answer,
          headers: { ...context.answer.headers, ...storableHeaders(response.headers) },
          storedAt: now(),
          generations: context.generations,
        },
        jobCompletedBefore,
      );
      await noteCompletedJobs(cache, request, refreshed);
      try {
        await cache.store(c.cacheKey, refreshed);
      } catch (error) {
        logger.warn({ err: error, requestId: request.id }, "cache refresh failed");
      }
      return {
        status: refreshed.status,
        headers: { ...refreshed.headers, ...storableHeaders(response.headers) },
        body: refreshed.body,
        cache: "REVALIDATED",
        cost: response.cost,
        upstreamCost: response.upstreamCost,
        waitedMs: response.waitedMs,
        rateLimit: response.rateLimit,
        resource: response.resource,
      };
    }
    if (!isStorable(request, response)) return response;
    try {
      await cache.store(
        c.cacheKey,
        finalize(
          c,
          {
            status: response.status,
            headers: storableHeaders(response.headers),
            body: response.body,
            storedAt: now(),
            generations: context.generations,
          },
          jobCompletedBefore,
        ),
      );
      if (c.graphql && c.repo) {
        const data = (JSON.parse(response.body.toString("utf8")) as { data?: unknown }).data;
        await cache.learnIds(learnIds(data, c.repo));
      }
    } catch (error) {
      logger.warn({ err: error, requestId: request.id }, "cache store failed; answer served uncached");
    }
    return response;
  };
}
