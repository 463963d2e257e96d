/**
 * The IPC edge for the composition root: the IpcServer on the socket, with the protocol's method
 * table (ipc/ipc-handlers.ts) wired to the broker's parts, `trace.report`, and what `hello`,
 * `broker.status` and `stats` report. `broker.shutdown` calls `shutdown` (the broker's close).
 */
import type { Telemetry } from "../../otel/index.js";
import { BROKER_VERSION, type BrokerContext } from "../broker-context.js";
import { budgetReport } from "../budget/budget-port.js";
import type { BrokerBudget } from "../budget/start-budget.js";
import type { ResponseCache } from "../cache/response-cache.js";
import type { GatewayServer } from "../gateway/gateway-server.js";
import type { BrokerObservability } from "../observability/observability.js";
import type { BrokerPipeline } from "../pipeline/build-pipeline.js";
import { describeRedisUrl } from "../redis/redis-url.js";
import type { BrokerRedis } from "../redis/start-redis.js";
import type { BrokerSessions } from "../sessions/start-sessions.js";
import type { UpstreamQueue } from "../upstream/upstream-queue.js";
import { createIpcHandlers, type LifecycleFacade } from "./ipc-handlers.js";
import { IpcServer } from "./ipc-server.js";
import { traceReportMethod } from "./trace-report-method.js";

export interface IpcParts {
  readonly startedAt: number;
  readonly upstreamUrl: string;
  readonly gateway: { readonly server: GatewayServer; readonly url: string };
  readonly redis: BrokerRedis;
  readonly sessions: BrokerSessions;
  readonly pipeline: BrokerPipeline;
  readonly cache: ResponseCache;
  readonly budget: BrokerBudget;
  readonly queue: UpstreamQueue;
  readonly observability: BrokerObservability;
  readonly telemetry: Telemetry;
  readonly lifecycle: LifecycleFacade | undefined;
  readonly shutdown: () => void;
}

export async function startIpc(context: BrokerContext, parts: IpcParts): Promise<IpcServer> {
  const { config, resolved, logger } = context;
  const { gateway, observability, sessions, redis: r } = parts;
  const socket = resolved.socketPath;
  const ipc = new IpcServer({
    socketPath: socket,
    maxConnections: config.ipc.maxConnections,
    helloTimeoutMs: config.ipc.helloTimeoutMs,
    maxLineBytes: config.ipc.maxLineBytes,
    maxInFlightPerConnection: config.ipc.maxInFlightPerConnection,
    notifyHighWaterBytes: config.ipc.notifyHighWaterBytes,
    maxBufferedBytes: config.ipc.maxBufferedBytes,
    closeGraceMs: config.ipc.closeGraceMs,
    socketProbeTimeoutMs: config.ipc.socketProbeTimeoutMs,
    brokerInfo: () => ({ version: BROKER_VERSION, pid: process.pid, gatewayUrl: gateway.url, socket }),
    logger: logger.child({ component: "ipc" }),
    secrets: context.secrets,
    extraMethods: { "trace.report": traceReportMethod(sessions.stats) },
    handlers: createIpcHandlers({
      store: sessions.store,
      stats: sessions.stats,
      pipeline: parts.pipeline.pipeline,
      classify: parts.pipeline.classify,
      degraded: () => !r.health.healthy,
      gatewayUrl: () => gateway.url,
      socketPath: socket,
      defaultDeadlineMs: config.gateway.defaultDeadlineMs,
      shutdown: parts.shutdown,
      budgetReport: () => budgetReport(parts.budget.gate, parts.queue),
      brokerStatus: async () => ({
        version: BROKER_VERSION,
        pid: process.pid,
        uptimeSeconds: Math.round((Date.now() - parts.startedAt) / 1000),
        gatewayUrl: gateway.url,
        socket,
        redis: { url: describeRedisUrl(r.location.url), source: r.location.source, namespace: r.prefix },
        identity: { login: r.identity.login, source: r.identity.source },
        upstream: parts.upstreamUrl,
        simulated: config.simulate,
        sessions: (await sessions.store.list()).length,
        inFlight: gateway.server.inFlight,
        tracing: parts.telemetry.tracingEnabled,
        degraded: !r.health.healthy,
        autoRegister: config.sessions.autoRegister,
        redisOutages: r.health.outages,
      }),
      statsReport: async () => ({
        cache: await parts.cache.stats(),
        queue: await parts.queue.stats(),
        inFlight: gateway.server.inFlight,
      }),
      instrument: (request, run) => observability.traceRequest(request, run),
      observe: (caller, request, response) =>
        observability.recordAnswer(caller, request, response, response.status),
      onInvocationStarted: (invocation) => observability.invocationStarted(invocation),
      lifecycle: parts.lifecycle,
      onInvocationFinished: (invocation) => observability.invocationFinished(invocation.id, invocation),
    }),
  });
  await ipc.start();
  context.shutdown.add("ipc server", () => ipc.close());
  return ipc;
}
