/**
 * The broker's IPC method table: what each protocol method does, in terms of the broker's parts.
 * The transport (framing, validation, errors, subscriptions) is broker/ipc's; this file only maps
 * methods to sessions, the pipeline, the budget and the lifecycle service.
 */

import type { BudgetResult, SessionInfo } from "../../client/index.js";
import { AoError } from "../../common/index.js";
import { BrokerErrors } from "../errors.js";
import { buildApiRequest } from "../pipeline/api-request.js";
import type { ClassifyInput, RequestClass } from "../pipeline/classify.js";
import type { Caller, GhRequest, GhResponse, Handler } from "../pipeline/types.js";
import { sessionEnv } from "../sessions/session-env.js";
import type { SessionStats, SessionStatsView } from "../sessions/session-stats.js";
import type { SessionRecord, SessionStore } from "../sessions/session-store.js";
import type { IpcHandlers } from "./index.js";

export interface LifecycleFacade {
  watch(input: { sessionId: string; repo: string; branch: string; pr?: number | undefined }): Promise<void>;
  unwatch(sessionId: string): Promise<boolean>;
  /** The lifecycle's whole status (sessions, last cycle, totals); `sessions` is the protocol's part. */
  status(): Promise<{ readonly sessions: readonly unknown[] } & Readonly<Record<string, unknown>>>;
}

export interface IpcHandlerDeps {
  readonly store: SessionStore;
  readonly stats: SessionStats;
  readonly pipeline: Handler;
  readonly classify: (input: ClassifyInput) => RequestClass;
  readonly budgetReport: () => Promise<BudgetResult>;
  readonly brokerStatus: () => Promise<Record<string, unknown>>;
  readonly statsReport: () => Promise<Record<string, unknown>>;
  readonly shutdown: () => void;
  readonly gatewayUrl: () => string;
  readonly socketPath: string;
  readonly defaultDeadlineMs: number;
  readonly lifecycle?: LifecycleFacade | undefined;
  /**
   * True while Redis is unreachable: writes are then refused as not sent (AO_ERR_WRITE_NOT_SENT),
   * reads go the gateway's degraded way (docs/reliability.md).
   */
  readonly degraded?: (() => boolean) | undefined;
  /** Every API call made over IPC, for the same accounting as gateway requests. */
  readonly observe?: ((caller: Caller, request: GhRequest, response: GhResponse) => void) | undefined;
  /** Runs one API call inside the broker's instrumentation (its request span). */
  readonly instrument?:
    | ((request: GhRequest, run: () => Promise<GhResponse>) => Promise<GhResponse>)
    | undefined;
  readonly onInvocationStarted?:
    | ((invocation: {
        invocationId: string;
        caller: Caller;
        argv: readonly string[];
        cwd?: string | undefined;
      }) => void)
    | undefined;
  readonly onInvocationFinished?:
    | ((invocation: {
        id: string;
        sessionId: string;
        exitCode: number;
        durationMs: number;
        signal?: string | undefined;
      }) => void)
    | undefined;
}

function iso(ms: number | undefined): string {
  return new Date(ms && ms > 0 ? ms : 0).toISOString();
}

export function toSessionInfo(session: SessionRecord, stats: SessionStatsView): SessionInfo {
  return {
    id: session.id,
    repo: session.repo,
    weight: session.weight,
    readOnly: session.readOnly,
    projectId: session.projectId ?? null,
    issueId: session.issueId ?? null,
    worktree: session.worktree ?? null,
    createdAt: iso(session.createdAt),
    lastSeenAt: iso(stats.lastSeenAt || session.createdAt),
    expiresAt: session.expiresAt === undefined ? null : iso(session.expiresAt),
    stats: {
      requests: stats.requests,
      upstreamRequests: stats.upstreamRequests,
      graphqlPoints: stats.graphqlPoints,
      restRequests: stats.restRequests,
      cacheHits: stats.cacheHits,
      coalesced: stats.coalesced,
      batched: stats.batched,
      queueWaitMsP50: stats.queueWaitMsP50,
      queueWaitMsP95: stats.queueWaitMsP95,
      invocations: stats.invocations,
      recentCommands: stats.recentCommands.map((c) => ({ command: c.command, cost: c.cost, at: iso(c.at) })),
    },
  };
}

async function callerFor(store: SessionStore, sessionId: string): Promise<Caller> {
  const session = await store.get(sessionId);
  if (!session)
    throw new AoError(BrokerErrors.AO_ERR_UNKNOWN_SESSION, `unknown session "${sessionId}"`, {
      httpStatus: 404,
    });
  return {
    sessionId: session.id,
    projectId: session.projectId,
    issueId: session.issueId,
    readOnly: session.readOnly,
    weight: session.weight,
    budgetGroup: session.budgetGroup,
  };
}

const NO_STATS: SessionStatsView = {
  requests: 0,
  upstreamRequests: 0,
  graphqlPoints: 0,
  restRequests: 0,
  cacheHits: 0,
  coalesced: 0,
  batched: 0,
  queueWaitMsP50: 0,
  queueWaitMsP95: 0,
  invocations: 0,
  lastSeenAt: 0,
  recentCommands: [],
};

/** A session's statistics; none while Redis is unreachable (they live there). */
function statsOf(stats: SessionStats, sessionId: string): Promise<SessionStatsView> {
  return stats.read(sessionId).catch(() => NO_STATS);
}

function bodyText(body: Buffer): { body: string; bodyEncoding: "utf8" | "base64" } {
  const text = body.toString("utf8");
  return Buffer.from(text, "utf8").equals(body)
    ? { body: text, bodyEncoding: "utf8" }
    : { body: body.toString("base64"), bodyEncoding: "base64" };
}

export function createIpcHandlers(deps: IpcHandlerDeps): IpcHandlers {
  const run = async (caller: Caller, request: ReturnType<typeof buildApiRequest>) => {
    // A write on a read-only session was refused by buildApiRequest, as on the gateway.
    const isWrite =
      request.classification.kind === "rest-write" || request.classification.kind === "graphql-mutation";
    if (isWrite && deps.degraded?.()) {
      throw new AoError(
        BrokerErrors.AO_ERR_WRITE_NOT_SENT,
        "ao-broker's Redis is unreachable, so this write was NOT sent to GitHub; repeat it once `ao-broker status` no longer says degraded",
        { httpStatus: 503, data: { retryAfterSeconds: 5, sent: false } },
      );
    }
    const response = deps.instrument
      ? await deps.instrument(request, () => deps.pipeline(request))
      : await deps.pipeline(request);
    deps.observe?.(caller, request, response);
    return response;
  };

  return {
    "session.open": async (params) => {
      const { session, token } = await deps.store.open(params);
      const stats = await statsOf(deps.stats, session.id);
      return {
        session: toSessionInfo(session, stats),
        token,
        env: sessionEnv({
          token,
          gatewayUrl: deps.gatewayUrl(),
          repo: session.repo,
          sessionId: session.id,
          socketPath: deps.socketPath,
        }),
      };
    },
    "session.close": async (params) => {
      const result = await deps.store.close(params.id);
      if (result.closed) {
        await deps.lifecycle?.unwatch(params.id).catch(() => false);
        await deps.stats.forget(params.id);
      }
      return result;
    },
    "session.list": async () => {
      const sessions = await deps.store.list();
      const stats = await Promise.all(sessions.map((s) => statsOf(deps.stats, s.id)));
      return { sessions: sessions.map((s, i) => toSessionInfo(s, stats[i] as SessionStatsView)) };
    },
    "token.issue": async (params) => {
      const issued = await deps.store.issueInvocationToken(params);
      deps.stats.recordInvocation(params.sessionId);
      const caller = await callerFor(deps.store, params.sessionId);
      deps.onInvocationStarted?.({
        invocationId: issued.invocationId,
        caller,
        argv: params.argv ?? [],
        cwd: params.cwd,
      });
      return { token: issued.token, invocationId: issued.invocationId, expiresAt: iso(issued.expiresAt) };
    },
    "invocation.finish": async (params) => {
      const invocation = await deps.store.finishInvocation(params);
      if (invocation) {
        deps.onInvocationFinished?.({
          id: invocation.id,
          sessionId: invocation.sessionId,
          exitCode: params.exitCode,
          durationMs: params.durationMs,
          signal: params.signal,
        });
      }
      return { ok: true as const };
    },
    "budget.get": () => deps.budgetReport(),
    graphql: async (params) => {
      const caller = await callerFor(deps.store, params.sessionId);
      const request = buildApiRequest(
        {
          method: "POST",
          path: "/graphql",
          graphql: {
            query: params.query,
            variables: params.variables ?? {},
            operationName: params.operationName,
          },
          caller,
          priority: params.priority,
          deadlineMs: params.deadlineMs ?? deps.defaultDeadlineMs,
          allowStale: params.allowStale,
        },
        deps.classify,
      );
      const response = await run(caller, request);
      let body: unknown;
      try {
        body = JSON.parse(response.body.toString("utf8"));
      } catch {
        body = response.body.toString("utf8");
      }
      return {
        status: response.status,
        headers: response.headers,
        body,
        cache: response.cache,
        cost: response.cost,
      };
    },
    rest: async (params) => {
      const caller = await callerFor(deps.store, params.sessionId);
      const body =
        params.body === undefined
          ? undefined
          : Buffer.from(params.body, params.bodyEncoding === "base64" ? "base64" : "utf8");
      const request = buildApiRequest(
        {
          method: params.method,
          path: params.path,
          headers: params.headers,
          body,
          caller,
          priority: params.priority,
          deadlineMs: params.deadlineMs ?? deps.defaultDeadlineMs,
          allowStale: params.allowStale,
        },
        deps.classify,
      );
      const response = await run(caller, request);
      return {
        status: response.status,
        headers: response.headers,
        ...bodyText(response.body),
        cache: response.cache,
        cost: response.cost,
      };
    },
    stats: () => deps.statsReport(),
    "lifecycle.watch": async (params) => {
      if (!deps.lifecycle)
        throw new AoError(
          BrokerErrors.AO_ERR_LIFECYCLE_DISABLED,
          "the lifecycle service is not running on this broker",
        );
      await callerFor(deps.store, params.sessionId);
      await deps.lifecycle.watch(params);
      return { watching: true as const };
    },
    "lifecycle.unwatch": async (params) => ({
      unwatched: (await deps.lifecycle?.unwatch(params.sessionId)) ?? false,
    }),
    "lifecycle.status": async () =>
      deps.lifecycle ? ((await deps.lifecycle.status()) as never) : { sessions: [] },
    "broker.status": async () => {
      const status = await deps.brokerStatus();
      return status as never;
    },
    "broker.shutdown": async () => {
      setImmediate(deps.shutdown);
      return { stopping: true as const };
    },
  };
}
