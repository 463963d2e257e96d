/**
 * The composition root: the one place that builds the daemon's parts, wires them, starts them in
 * order, and stops them in reverse (STYLE.md §16). Start: config → logger and telemetry → upstream
 * (GitHub, or an embedded simulator with --simulate) → Redis (explicit, local, or a private
 * redis-server) → sessions, cache, budget, upstream queue, pipeline → gateway (HTTP) → IPC socket.
 * Stop: stop accepting on both edges and let in-flight requests finish (the drain), then close the
 * batcher, the queue, the budget, the cache, Redis connections, telemetry (flushing it), and finally
 * the private redis-server if this broker started it.
 */
import { mkdirSync } from "node:fs";
import { z } from "zod";
import { createLogger, type Logger } from "../common/index.js";
import { loadGitHubSchema } from "../github/index.js";
import { type RunningSimulator, startSimulator } from "../github-sim/index.js";
import {
  createRedisDeliveryDedupe,
  createWebhookHandler,
  type LifecycleConfig,
  resolveLifecycleConfig,
} from "../lifecycle/index.js";
import { buildTraceReport, parseDuration, startTelemetry, type Telemetry } from "../otel/index.js";
import { BatchScheduler, RATE_LIMIT_ALIAS, RepeatTracker } from "./batch/index.js";
import { fetchBlob } from "./blob-fetch.js";
import { BudgetGate } from "./budget/index.js";
import { budgetPort, budgetReport, learnBuckets } from "./budget-port.js";
import { GraphQLAnalyzer } from "./cache/graphql-analyzer.js";
import { ResponseCache } from "./cache/response-cache.js";
import {
  type LoadConfigOptions,
  loadConfig,
  parseListen,
  type ResolvedConfig,
} from "./config/load-config.js";
import { DegradedUpstream } from "./degraded-upstream.js";
import { GatewayServer } from "./gateway/gateway-server.js";
import { IpcServer } from "./ipc/index.js";
import { createIpcHandlers } from "./ipc-handlers.js";
import { lifecycleEventChannel } from "./lifecycle-ports.js";
import { createLifecycleLeader } from "./lifecycle-wiring.js";
import { LocalBudget } from "./local-budget.js";
import { BrokerObservability } from "./observability.js";
import { batchLayer } from "./pipeline/batch-layer.js";
import { classifyRequest, type FreshnessPolicy } from "./pipeline/classify.js";
import { createGatewayPipeline } from "./pipeline/create-gateway-pipeline.js";
import { rateLimitProbe } from "./rate-limit-probe.js";
import { createRedisClient, describeRedisUrl, type ResolvedRedis, resolveRedis } from "./redis/index.js";
import { PubSubHub } from "./redis/pubsub-hub.js";
import { RedisHealth } from "./redis/redis-health.js";
import { CallerResolver } from "./sessions/caller-resolver.js";
import { SessionStats } from "./sessions/session-stats.js";
import { SessionStore } from "./sessions/session-store.js";
import { ShutdownSequence } from "./shutdown-sequence.js";
import { UpstreamClient, UpstreamQueue } from "./upstream/index.js";
import { createUpstreamPort } from "./upstream-port.js";

export const BROKER_VERSION = "0.1.0";

export interface StartBrokerOptions extends LoadConfigOptions {
  /** A logger to use instead of the default stderr one. */
  readonly logger?: Logger;
  /** Telemetry to use; by default started from the OTEL_* variables (off without an endpoint). */
  readonly telemetry?: Telemetry;
  /** Probe 127.0.0.1:6379 when no Redis is named. @defaultValue true */
  readonly probeLocalRedis?: boolean;
}

export interface RunningBroker {
  readonly gatewayUrl: string;
  readonly socketPath: string;
  readonly upstreamUrl: string;
  readonly redis: { readonly url: string; readonly source: ResolvedRedis["source"] };
  /** The embedded simulator, with --simulate. */
  readonly simulator: RunningSimulator | undefined;
  readonly config: ResolvedConfig["config"];
  /** Resolves once the broker has stopped: after close(), or after an IPC `broker.shutdown`. */
  readonly stopped: Promise<void>;
  close(): Promise<void>;
}

const traceReportParams = z.strictObject({
  since: z.string().max(32).optional(),
  top: z.int().min(1).max(1000).optional(),
});

/**
 * How long one shutdown step may take before the broker goes on without it (ShutdownSequence),
 * beyond the drain time of its own that a step like the gateway or the queue is given.
 */
const SHUTDOWN_STEP_TIMEOUT_MS = 5_000;
/** The same for a step that needs Redis while Redis is unreachable. */
const REDIS_DOWN_STEP_TIMEOUT_MS = 500;
/** How long the gateway lets in-flight requests finish at shutdown. */
const GATEWAY_DRAIN_MS = 30_000;

export async function startBroker(options: StartBrokerOptions = {}): Promise<RunningBroker> {
  const resolved = loadConfig(options);
  const { config } = resolved;
  const env = options.env ?? process.env;
  const secrets = () =>
    [resolved.token?.reveal(), resolved.webhookSecret?.reveal()].filter((s): s is string => !!s);
  const logger = options.logger ?? createLogger({ level: config.logLevel, secrets });
  const started = Date.now();
  const closers = new ShutdownSequence({ stepTimeoutMs: SHUTDOWN_STEP_TIMEOUT_MS, logger });
  const closeAll = () => closers.run();

  try {
    mkdirSync(resolved.stateDir, { recursive: true, mode: 0o700 });
    const telemetry =
      options.telemetry ??
      startTelemetry({
        env,
        serviceVersion: BROKER_VERSION,
        secrets,
        logger: logger.child({ component: "otel" }),
        // A span per Redis command triples the spans of a cache hit and costs more than the hit
        // itself; opt in when debugging Redis (AO_BROKER_TRACE_REDIS=1).
        traceRedis: env.AO_BROKER_TRACE_REDIS === "1",
      });
    if (!options.telemetry) closers.add("telemetry", () => telemetry.close());

    let simulator: RunningSimulator | undefined;
    let upstreamUrl = config.upstream.url;
    let token = resolved.token?.reveal();
    if (config.simulate) {
      simulator = await startSimulator({ port: 0 });
      closers.add("simulator", () => simulator?.close());
      upstreamUrl = simulator.url;
      token = simulator.token;
    }

    const redisLocation = await resolveRedis({
      url: config.redis.url,
      stateDir: resolved.stateDir,
      probeLocal: options.probeLocalRedis ?? true,
    });
    if (redisLocation.embedded) closers.add("embedded redis", () => redisLocation.embedded?.stop());
    const prefix = config.redis.prefix;
    // The main connection fails fast while Redis is away (no offline queue, one retry), so the
    // request path falls back at once instead of waiting for a reconnect.
    const redis = createRedisClient(redisLocation.url, {
      connectionName: "aob:main",
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      lazyConnect: true,
    });
    const subscriber = createRedisClient(redisLocation.url, { connectionName: "aob:sub" });
    closers.add("redis connections", () => {
      redis.disconnect();
      subscriber.disconnect();
    });
    await redis.connect();
    const health = new RedisHealth(redis, logger.child({ component: "redis" }));
    // Steps that talk to Redis: with Redis gone they would only wait for a reconnect that is not coming.
    const redisStepTimeout =
      (healthyMs = SHUTDOWN_STEP_TIMEOUT_MS) =>
      () =>
        health.healthy ? healthyMs : REDIS_DOWN_STEP_TIMEOUT_MS;
    const redisStep = redisStepTimeout();
    const pubsub = new PubSubHub(subscriber);
    closers.add("pubsub", () => pubsub.close(), redisStep);

    const store = new SessionStore({
      redis,
      prefix,
      sessionTokenTtlSeconds: config.sessions.sessionTokenTtlSeconds,
      invocationTokenTtlSeconds: config.sessions.invocationTokenTtlSeconds,
    });
    const stats = new SessionStats({ redis, prefix });
    closers.add("session stats", () => stats.close(), redisStep);
    const observability = new BrokerObservability({ telemetry, stats, logger, upstreamUrl, env, secrets });
    closers.add("observability", () => observability.close());
    const resolver = new CallerResolver({
      store,
      pubsub,
      onInvocation: (invocation) => {
        stats.recordInvocation(invocation.caller.sessionId);
        observability.invocationStarted(invocation);
      },
    });
    await resolver.start();
    closers.add("caller resolver", () => resolver.close(), redisStep);
    // An epoch key tells a Redis that came back empty (restarted without persistence) from one that
    // kept its data; after a loss, the sessions and tokens this broker saw recently are put back.
    const epochKey = `${prefix}:epoch`;
    await redis.set(epochKey, String(Date.now()), "NX");
    health.onChange((healthy) => {
      if (!healthy) return;
      // Invalidations published while this broker was cut off were missed.
      cache.clearLocal();
      void (async () => {
        if (await redis.exists(epochKey)) return;
        await redis.set(epochKey, String(Date.now()), "NX");
        const restored = await resolver.restoreInto(store);
        logger.warn(
          { restored },
          "Redis came back without its data: restored recently seen sessions and tokens",
        );
      })().catch((error: unknown) => logger.warn({ err: error }, "could not check Redis for data loss"));
    });
    const cache = new ResponseCache({
      redis,
      prefix,
      maxBytes: config.cache.maxBytes,
      maxEntryBytes: config.cache.maxEntryBytes,
      retainSeconds: config.cache.retainSeconds,
      localBytes: config.cache.localBytes,
      pubsub,
    });
    await cache.start();
    closers.add("response cache", () => cache.close(), redisStep);

    const gate = new BudgetGate({
      redis: redisLocation.url,
      prefix,
      logger: logger.child({ component: "budget" }),
      policy: { reserve: config.budget.reserve },
    });
    await gate.start();
    closers.add("budget gate", () => gate.close(), redisStep);
    const localBudget = new LocalBudget();
    const budget = budgetPort({ gate, logger, health, local: localBudget });

    const client = new UpstreamClient({
      baseUrl: upstreamUrl,
      token: () => token,
      timeoutMs: config.upstream.timeoutMs,
      logger: logger.child({ component: "upstream" }),
    });
    closers.add("upstream client", () => client.close());
    const queue = new UpstreamQueue({
      redis: redisLocation.url,
      prefix,
      client,
      logger: logger.child({ component: "queue" }),
      requestTimeoutMs: config.upstream.timeoutMs,
      policy: {
        concurrency: config.queue.concurrency,
        ...config.queue.pacing,
        graphqlRateLimitAlias: RATE_LIMIT_ALIAS,
      },
    });
    await queue.start();
    // The queue drains this broker's submissions, then waits for the jobs its workers run.
    closers.add(
      "upstream queue",
      () => queue.close(),
      redisStepTimeout(queue.policy.drainTimeoutMs + config.upstream.timeoutMs + SHUTDOWN_STEP_TIMEOUT_MS),
    );
    await learnBuckets(client, gate, logger, localBudget);
    const degraded = new DegradedUpstream({ client });
    const upstream = createUpstreamPort({ queue, degraded, health, observability });

    const schema = loadGitHubSchema();
    // Validated now, so a bad key fails start-up with its name.
    const lifecycleSettings = config.lifecycle.settings as Partial<LifecycleConfig>;
    if (config.lifecycle.enabled) resolveLifecycleConfig(lifecycleSettings);
    const analyzer = new GraphQLAnalyzer({ schema });
    const policy: FreshnessPolicy = {
      restFreshMs: config.cache.restFreshMs,
      graphqlFreshMs: config.cache.graphqlFreshMs,
      // Only a lifecycle poller vouches; without one the setting would never apply anyway.
      guardedFreshMs: config.lifecycle.enabled ? config.cache.guardedFreshMs : 0,
    };
    const classify = (input: Parameters<typeof classifyRequest>[0]) =>
      classifyRequest(input, analyzer, policy);
    const batch = config.batching.enabled
      ? batchLayer({
          repeats: new RepeatTracker(),
          createScheduler: (send) =>
            new BatchScheduler({
              send,
              schema,
              budgetsMs: config.batching.latencyBudgetMs,
              maxMembers: config.batching.maxMembers,
              maxCost: config.batching.maxCost,
            }),
          onScheduler: (scheduler) =>
            closers.add(
              "batch scheduler",
              () => scheduler.close({ flush: true }),
              config.upstream.timeoutMs + SHUTDOWN_STEP_TIMEOUT_MS,
            ),
          captureContext: (request) => observability.captureContext(request),
          traceFlush: (members, request, fn) => observability.traceFlush(members, request, fn),
        })
      : undefined;
    const pipeline = createGatewayPipeline({
      batch,
      cache,
      budget,
      upstream,
      logger,
      probe: rateLimitProbe(),
      shared: { redis, pubsub, prefix },
    });

    // One lifecycle poller per Redis: the broker holding the lease runs it, the others forward to it.
    const leader = config.lifecycle.enabled
      ? createLifecycleLeader({
          redis,
          pubsub,
          prefix,
          pipeline,
          classify,
          cache,
          gate,
          observability,
          settings: lifecycleSettings,
          logger,
        })
      : undefined;
    const webhookSecret = resolved.webhookSecret?.reveal();
    const webhooks =
      leader && webhookSecret
        ? createWebhookHandler({
            secret: webhookSecret,
            lifecycle: leader,
            dedupe: createRedisDeliveryDedupe({ client: redis, keyPrefix: prefix }),
            logger: logger.child({ component: "webhooks" }),
          })
        : undefined;

    const listen = parseListen(config.listen);
    const gateway = new GatewayServer({
      host: listen.host,
      port: listen.port,
      publicHost: config.gateway.publicHost,
      blobHosts: config.gateway.blobHosts,
      maxBodyBytes: config.gateway.maxBodyBytes,
      defaultDeadlineMs: config.gateway.defaultDeadlineMs,
      allowRemoteMetrics: config.gateway.allowRemoteMetrics,
      upstreamBase: upstreamUrl,
      forwardClientHost: config.upstream.forwardClientHost || config.simulate,
      pipeline,
      authenticate: (t) => resolver.resolve(t),
      classify,
      sessionView: (sessionId, resource, weight) => budget.sessionView(sessionId, resource, weight),
      logger: logger.child({ component: "gateway" }),
      instrument: (request, run) => observability.traceRequest(request, run),
      observe: (event) => observability.onGatewayEvent(event),
      metrics: () => telemetry.renderPrometheus(),
      webhook: webhooks ? (input) => webhooks.handleWebhook(input) : undefined,
      blobFetch: (url) => fetchBlob(url, config.upstream.timeoutMs),
      invocationFinished: async (caller, report) => {
        if (!caller.invocationId) return;
        await store.finishInvocation({ invocationId: caller.invocationId, ...report });
        observability.invocationFinished(caller.invocationId, report);
      },
    });
    const gatewayUrl = await gateway.start();
    closers.add(
      "gateway",
      () => gateway.close(GATEWAY_DRAIN_MS),
      GATEWAY_DRAIN_MS + SHUTDOWN_STEP_TIMEOUT_MS,
    );

    let markStopped: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => {
      markStopped = resolve;
    });
    let closing: Promise<void> | undefined;
    const close = () => {
      closing ??= (async () => {
        logger.info("ao-broker stopping: draining in-flight requests");
        await closeAll();
        logger.info("ao-broker stopped");
        markStopped();
      })();
      return closing;
    };

    const ipc = new IpcServer({
      socketPath: resolved.socketPath,
      brokerInfo: () => ({
        version: BROKER_VERSION,
        pid: process.pid,
        gatewayUrl,
        socket: resolved.socketPath,
      }),
      logger: logger.child({ component: "ipc" }),
      secrets,
      extraMethods: {
        "trace.report": {
          params: traceReportParams,
          handler: async (params) => {
            const { since, top } = params as z.infer<typeof traceReportParams>;
            const sinceMs = since ? parseDuration(since) : undefined;
            const now = Date.now();
            const records = await stats.calls(sinceMs === undefined ? undefined : now - sinceMs);
            return buildTraceReport(records, { now, sinceMs, ...(top ? { top } : {}) });
          },
        },
      },
      handlers: createIpcHandlers({
        store,
        stats,
        pipeline,
        classify,
        gatewayUrl: () => gatewayUrl,
        socketPath: resolved.socketPath,
        defaultDeadlineMs: config.gateway.defaultDeadlineMs,
        shutdown: () => void close(),
        budgetReport: () => budgetReport(gate),
        brokerStatus: async () => ({
          version: BROKER_VERSION,
          pid: process.pid,
          uptimeSeconds: Math.round((Date.now() - started) / 1000),
          gatewayUrl,
          socket: resolved.socketPath,
          redis: { url: describeRedisUrl(redisLocation.url), source: redisLocation.source },
          upstream: upstreamUrl,
          simulated: config.simulate,
          sessions: (await store.list()).length,
          inFlight: gateway.inFlight,
          tracing: telemetry.tracingEnabled,
          degraded: !health.healthy,
          autoRegister: config.sessions.autoRegister,
          redisOutages: health.outages,
        }),
        statsReport: async () => ({
          cache: await cache.stats(),
          queue: await queue.stats(),
          inFlight: gateway.inFlight,
        }),
        instrument: (request, run) => observability.traceRequest(request, run),
        observe: (caller, request, response) =>
          observability.recordAnswer(caller, request, response, response.status),
        onInvocationStarted: (invocation) => observability.invocationStarted(invocation),
        lifecycle: leader
          ? {
              watch: async (input) => {
                await leader.watch({
                  id: input.sessionId,
                  repo: input.repo,
                  branch: input.branch,
                  ...(input.pr ? { pr: input.pr } : {}),
                });
              },
              unwatch: (sessionId) => leader.unwatch(sessionId),
              status: async () =>
                (await leader.status()) as { sessions: unknown[] } & Record<string, unknown>,
            }
          : undefined,
        onInvocationFinished: (invocation) => observability.invocationFinished(invocation.id, invocation),
      }),
    });
    await ipc.start();
    closers.add("ipc server", () => ipc.close());
    const unsubscribeEvents = await pubsub.subscribe(lifecycleEventChannel(prefix), (message) => {
      try {
        const event = JSON.parse(message.toString("utf8")) as { type?: string };
        if (typeof event.type === "string") ipc.publish(`lifecycle.${event.type}`, event);
      } catch {
        // not an event
      }
    });
    closers.add("lifecycle events", unsubscribeEvents, redisStep);
    if (leader) {
      await leader.start();
      // A cycle running at the stop finishes first; its requests may wait for an upstream answer.
      closers.add(
        "lifecycle leader",
        () => leader.close(),
        redisStepTimeout(config.upstream.timeoutMs + SHUTDOWN_STEP_TIMEOUT_MS),
      );
    }

    observability.start({
      budget: async () =>
        (await gate.globalView()).map((v) => ({
          resource: v.resource,
          limit: v.limit,
          remaining: v.remaining,
          used: v.used,
          reset: v.reset,
        })),
      queue: async () => {
        const q = await queue.stats();
        const depth: Record<string, number> = {};
        for (const [lane, counts] of Object.entries(q.lanes))
          depth[lane] = (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0);
        return { depth, pausesStarted: q.pausesStarted };
      },
      activeSessions: async () => (await gate.sessionSpend()).filter((s) => s.active).length,
    });

    logger.info(
      {
        gateway: gatewayUrl,
        socket: resolved.socketPath,
        redis: describeRedisUrl(redisLocation.url),
        upstream: upstreamUrl,
        tracing: telemetry.tracingEnabled,
      },
      "ao-broker started",
    );
    return {
      gatewayUrl,
      socketPath: resolved.socketPath,
      upstreamUrl,
      redis: { url: redisLocation.url, source: redisLocation.source },
      simulator,
      config,
      stopped,
      close,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
