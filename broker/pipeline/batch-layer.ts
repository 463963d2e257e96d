/**
 * Cross-session GraphQL batching in the pipeline (the scheduler and merger are broker/batch's).
 * A GraphQL query that missed the cache waits, within its latency budget, for compatible queries
 * from other sessions; the group goes upstream as ONE aliased query and each caller gets exactly
 * its own answer, labelled BATCHED, charged its share of the real cost.
 *
 * The latency budget depends on who is asking (broker/batch chooseBatchClass): a first-time
 * interactive read waits a few ms, a repeat or a watch loop (`gh pr checks --watch`) up to ~2 s,
 * the lifecycle poller up to its cycle. What the scheduler sends goes down the rest of the
 * pipeline (budget, upstream queue) as one request whose cost is shared by every session in it,
 * coalesced followers of each member included.
 *
 * Mutations (decision 0023), when a write batcher is given: mutations from different sessions
 * that arrive within its window leave as ONE aliased mutation down the same path (budget, the
 * serial write lane), each caller answered with its own part, labelled BATCHED. A mutation with no
 * partner, or one that cannot be merged, goes on as written. Nothing is ever sent twice: a part
 * that cannot be split back is answered AO_ERR_WRITE_OUTCOME_UNKNOWN (it may have run), and a
 * failed send fails every member with the queue's own error.
 */
import { randomUUID } from "node:crypto";
import { AoError } from "../../common/index.js";
import type {
  BatchScheduler,
  MutationBatcher,
  RepeatTracker,
  UpstreamGraphQLRequest,
  UpstreamReply,
} from "../batch/index.js";
import { chooseBatchClass } from "../batch/index.js";
import { CACHE_DEFAULTS } from "../cache/cache-settings.js";
import { UpstreamErrors } from "../upstream/errors.js";
import type { RequestClass } from "./classify.js";
import type { Caller, CostSharing, GhRequest, GhResponse, Handler, Layer } from "./types.js";

export interface BatchLayerOptions {
  /** Builds the scheduler around the layer's `send` (which runs the rest of the pipeline). */
  readonly createScheduler: (
    send: (request: UpstreamGraphQLRequest) => Promise<UpstreamReply>,
  ) => BatchScheduler;
  readonly repeats: RepeatTracker;
  /** Receives the scheduler once built, e.g. so the composition root can close it. */
  readonly onScheduler?: (scheduler: BatchScheduler) => void;
  /** Builds the write batcher around the layer's `send`; absent: every mutation goes alone. */
  readonly createMutationBatcher?: (
    send: (request: UpstreamGraphQLRequest) => Promise<UpstreamReply>,
  ) => MutationBatcher;
  /** Receives the write batcher once built (so the composition root can close it). */
  readonly onMutationBatcher?: (batcher: MutationBatcher) => void;
  /** @defaultValue Date.now */
  readonly now?: () => number;
  /**
   * How long the broker's own refresh queries (decision 0014) wait for each other; they are
   * submitted together, so this only needs to cover the few ms between their arrivals.
   * @defaultValue 50
   */
  readonly refreshDelayMs?: number;
  /** Captures a member request's trace context, for the flush span's links. */
  readonly captureContext?: (request: GhRequest) => unknown;
  /**
   * Runs the send of `request` (the query built for the members) in its trace: a batch-flush
   * span linked to the members, or the one member's own trace.
   */
  readonly traceFlush?: <T>(
    memberContexts: readonly unknown[],
    request: GhRequest,
    fn: () => Promise<T>,
  ) => Promise<T>;
}

interface Member {
  readonly request: GhRequest;
  /** Waits (budget, queue) of the upstream requests this member's answer came from. */
  downstreamWaitMs: number;
  readonly traceContext: unknown;
  /** Computed requests (github/ cost): the basis of this member's share. */
  readonly basis: number;
  /** A merged mutation's member: its share of what the merged request cost. */
  cost: number;
}

/** Only members whose answers GitHub would shape alike may share a query. */
export function batchMergeKey(headers: Readonly<Record<string, string>>): string {
  return `${headers.accept ?? ""}\u0000${headers["graphql-features"] ?? ""}\u0000${headers["x-github-api-version"] ?? ""}`;
}

function syntheticClass(members: readonly Member[], mutation: boolean): RequestClass {
  const creating = members.filter((m) => m.request.classification.contentCreation).length;
  return {
    kind: mutation ? "graphql-mutation" : "graphql-query",
    resource: "graphql",
    cacheable: false,
    cacheKey: "",
    reads: [],
    writes: [],
    writeNodeIds: [],
    freshMs: 0,
    guardedFreshMs: 0,
    vouchTags: [],
    estimatedCost: Math.max(1, Math.round(members.reduce((sum, m) => sum + m.basis, 0) / 100)),
    free: false,
    // A merged mutation creates what its members create: each counts against 80/min and 500/h.
    contentCreation: mutation && creating > 0,
    ...(mutation && creating > 0 ? { contentCreations: creating } : {}),
  };
}

export function batchLayer(options: BatchLayerOptions): Layer {
  const now = options.now ?? Date.now;
  return (next: Handler) => {
    const members = new Map<string, Member>();

    const sendAs = async (upstream: UpstreamGraphQLRequest, mutation: boolean): Promise<UpstreamReply> => {
      const group = upstream.memberIds
        .map((id) => members.get(id))
        .filter((m): m is Member => m !== undefined);
      const first = group[0]?.request;
      if (!first) throw new Error("batch: a query with no known member");
      // Everyone who will read this answer shares its cost: each member, split among its own
      // coalesced followers, as they stand when the budget layer asks (followers may still join).
      const sharing: CostSharing = {
        participants: () =>
          Object.freeze(
            group.flatMap((member) => {
              const own = member.request.sharing?.participants() ?? [
                { sessionId: member.request.caller.sessionId, basis: 1 },
              ];
              const weight = own.reduce((sum, p) => sum + p.basis, 0) || 1;
              return own.map((p) =>
                Object.freeze({ sessionId: p.sessionId, basis: (member.basis * p.basis) / weight }),
              );
            }),
          ),
      };
      const payload: Record<string, unknown> = { query: upstream.query, variables: upstream.variables ?? {} };
      if (upstream.operationName) payload.operationName = upstream.operationName;
      const caller: Caller = first.caller;
      const request: GhRequest = {
        id: randomUUID(),
        method: "POST",
        path: "/graphql",
        headers: { ...upstream.headers, "content-type": "application/json" },
        body: Buffer.from(JSON.stringify(payload)),
        graphql: {
          query: upstream.query,
          variables: (upstream.variables ?? {}) as Record<string, unknown>,
          operationName: upstream.operationName,
        },
        caller,
        classification: syntheticClass(group, mutation),
        priority: upstream.priority,
        deadlineAt: Math.min(...group.map((m) => m.request.deadlineAt)),
        allowStale: false,
        receivedAt: now(),
        sharing,
      };
      const run = async () => {
        const response = await next(request);
        // Budget and queue waits of the shared request count for every member that waited on it.
        for (const member of group) member.downstreamWaitMs += response.waitedMs ?? 0;
        const basis = group.reduce((sum, m) => sum + m.basis, 0) || 1;
        for (const member of group) member.cost = (response.cost * member.basis) / basis;
        return { status: response.status, headers: response.headers, body: response.body };
      };
      // A merged query serves many callers, so its span is nobody's child (it links to each member);
      // a query sent for one caller stays in that caller's trace.
      return options.traceFlush
        ? options.traceFlush(
            group.map((m) => m.traceContext),
            request,
            run,
          )
        : run();
    };

    const scheduler = options.createScheduler((upstream) => sendAs(upstream, false));
    options.onScheduler?.(scheduler);
    const writes = options.createMutationBatcher?.((upstream) => sendAs(upstream, true));
    if (writes) options.onMutationBatcher?.(writes);

    const mutate = async (
      request: GhRequest,
      graphql: NonNullable<GhRequest["graphql"]>,
      writer: MutationBatcher,
    ): Promise<GhResponse> => {
      const c = request.classification;
      members.set(request.id, {
        request,
        basis: 1,
        downstreamWaitMs: 0,
        traceContext: options.captureContext?.(request),
        cost: 0,
      });
      try {
        const outcome = await writer.submit(
          {
            id: request.id,
            query: graphql.query,
            variables: graphql.variables,
            operationName: graphql.operationName,
            document: c.graphql?.document,
          },
          {
            sessionId: request.caller.sessionId,
            mergeKey: batchMergeKey(request.headers),
            priority: request.priority,
            headers: request.headers,
          },
        );
        if (outcome.kind === "alone") return await next(request);
        if (outcome.kind === "unsplit") {
          throw new AoError(
            UpstreamErrors.AO_ERR_WRITE_OUTCOME_UNKNOWN,
            `write outcome unknown: this mutation went with ${outcome.batchSize - 1} others in one request and its part of GitHub's answer cannot be told apart (${outcome.reason}); it may or may not have run, and it is not sent again`,
            { httpStatus: 502, data: { requestId: request.id, method: "POST", path: "/graphql" } },
          );
        }
        const member = members.get(request.id);
        const cost = Math.round((member?.cost ?? 0) * 1000) / 1000;
        return {
          status: outcome.response.status,
          headers: outcome.response.headers,
          body: Buffer.from(outcome.response.body),
          cache: "BATCHED",
          cost,
          upstreamCost: cost,
          resource: "graphql",
          waitedMs: outcome.waitedMs + (member?.downstreamWaitMs ?? 0),
          sharedBy: outcome.batchSize,
        };
      } finally {
        members.delete(request.id);
      }
    };

    return async (request: GhRequest): Promise<GhResponse> => {
      const c = request.classification;
      if (c.kind === "graphql-mutation" && request.graphql && writes && !request.refresh)
        return mutate(request, request.graphql, writes);
      if (c.kind !== "graphql-query" || !request.graphql) return next(request);
      const repeat = options.repeats.observe(
        {
          sessionId: request.caller.sessionId,
          query: request.graphql.query,
          variables: request.graphql.variables,
          operationName: request.graphql.operationName,
        },
        now(),
      );
      members.set(request.id, {
        request,
        basis: Math.max(1, c.graphql?.cost.requests ?? 1),
        downstreamWaitMs: 0,
        traceContext: options.captureContext?.(request),
        cost: 0,
      });
      try {
        const outcome = await scheduler.submit(
          {
            id: request.id,
            query: request.graphql.query,
            variables: request.graphql.variables,
            operationName: request.graphql.operationName,
            document: c.graphql?.document,
          },
          {
            mergeKey: batchMergeKey(request.headers),
            batchClass: chooseBatchClass({
              priority: request.priority,
              command: request.caller.command,
              repeat,
              immutable: c.immutable === true,
            }),
            priority: request.priority,
            headers: request.headers,
            sessionId: request.caller.sessionId,
            ...(request.refresh
              ? { maxDelayMs: options.refreshDelayMs ?? CACHE_DEFAULTS.refresh.batchWindowMs }
              : {}),
          },
        );
        const cost = Math.round(outcome.costShare * 1000) / 1000;
        return {
          status: outcome.response.status,
          headers: outcome.response.headers,
          body: Buffer.from(outcome.response.body),
          cache: outcome.batched && outcome.batchSize > 1 ? "BATCHED" : c.cacheable ? "MISS" : "BYPASS",
          cost,
          upstreamCost: cost,
          resource: "graphql",
          waitedMs: outcome.waitedMs + (members.get(request.id)?.downstreamWaitMs ?? 0),
          sharedBy: outcome.batchSize,
        };
      } finally {
        members.delete(request.id);
      }
    };
  };
}
