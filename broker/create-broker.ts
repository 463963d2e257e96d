/**
 * The composition root: the one place that builds the daemon's parts, wires them, starts them in
 * order, and stops them in reverse (docs/CONTRIBUTING.md, "Layout": one composition root). Each
 * subsystem's builder (beside the subsystem: redis/start-redis.ts, sessions/start-sessions.ts, ...)
 * starts its parts and adds their stop steps to the shutdown sequence. Start: config → logger and
 * telemetry → upstream (GitHub, or the simulator the caller starts with `simulate`) → Redis
 * (explicit, local, or a private redis-server) → sessions, cache, budget, upstream queue, pipeline,
 * lifecycle → gateway (HTTP) → IPC socket → lifecycle poller. Stop: stop accepting on both edges and
 * let in-flight requests finish (the drain), then close the batcher, the queue, the budget, the
 * cache, Redis connections, telemetry (flushing it), and finally the private redis-server if this
 * broker started it. broker/README.md draws the path of a request through the parts.
 */
import { mkdirSync } from "node:fs";
import { AoError, CommonErrors, createLogger, type Logger } from "../common/index.js";
import type { Telemetry } from "../otel/index.js";
import {
  BROKER_VERSION,
  type BrokerContext,
  type ProvidedUpstream,
  SHUTDOWN_STEP_TIMEOUT_MS,
} from "./broker-context.js";
import { startBudget } from "./budget/start-budget.js";
import { startResponseCache } from "./cache/start-cache.js";
import { type LoadConfigOptions, loadConfig, type ResolvedConfig } from "./config/load-config.js";
import { startGateway } from "./gateway/start-gateway.js";
import { startIpc } from "./ipc/start-ipc.js";
import { createBrokerLifecycle } from "./lifecycle/index.js";
import {
  gaugeSources,
  startBrokerObservability,
  startBrokerTelemetry,
} from "./observability/start-observability.js";
import { buildPipeline } from "./pipeline/build-pipeline.js";
import { describeRedisUrl, type ResolvedRedis } from "./redis/index.js";
import { startBrokerRedis } from "./redis/start-redis.js";
import { createSessionRecords, startSessions } from "./sessions/start-sessions.js";
import { ShutdownSequence } from "./shutdown-sequence.js";
import { startUpstream } from "./upstream/start-upstream.js";

export { BROKER_VERSION, type ProvidedUpstream };

export interface StartBrokerOptions extends LoadConfigOptions {
  /** A logger to use instead of the default stderr one. */
  readonly logger?: Logger;
  /** Telemetry to use; by default started from the OTEL_* variables (off without an endpoint). */
  readonly telemetry?: Telemetry;
  /** Probe 127.0.0.1:6379 when no Redis is named. @defaultValue true */
  readonly probeLocalRedis?: boolean;
  /** Starts the upstream `simulate` asks for (the CLI passes github-sim's simulator). */
  readonly startSimulator?: () => Promise<ProvidedUpstream>;
}

export interface RunningBroker {
  readonly gatewayUrl: string;
  readonly socketPath: string;
  readonly upstreamUrl: string;
  /** `namespace`: the identity-scoped key prefix (broker/redis/identity-namespace.ts). */
  readonly redis: {
    readonly url: string;
    readonly source: ResolvedRedis["source"];
    readonly namespace: string;
  };
  /** True when the upstream is the simulator started through `startSimulator`. */
  readonly simulated: boolean;
  readonly config: ResolvedConfig["config"];
  /** Resolves once the broker has stopped: after close(), or after an IPC `broker.shutdown`. */
  readonly stopped: Promise<void>;
  close(): Promise<void>;
}

export async function startBroker(options: StartBrokerOptions = {}): Promise<RunningBroker> {
  const resolved = loadConfig(options);
  const { config } = resolved;
  const secrets = () =>
    [resolved.token?.reveal(), resolved.webhookSecret?.reveal()].filter((s): s is string => !!s);
  const logger = options.logger ?? createLogger({ level: config.logLevel, secrets });
  const shutdown = new ShutdownSequence({ stepTimeoutMs: SHUTDOWN_STEP_TIMEOUT_MS, logger });
  const context: BrokerContext = {
    resolved,
    config,
    logger,
    env: options.env ?? process.env,
    secrets,
    shutdown,
  };
  const stop = stopOnce(context);
  const startedAt = Date.now();
  try {
    mkdirSync(resolved.stateDir, { recursive: true, mode: 0o700 });
    const telemetry = startBrokerTelemetry(context, options.telemetry);
    const target = await upstreamTarget(context, options.startSimulator);
    const redis = await startBrokerRedis(context, {
      probeLocal: options.probeLocalRedis ?? true,
      upstream: target,
    });
    const records = createSessionRecords(context, redis);
    const observability = startBrokerObservability(context, {
      telemetry,
      stats: records.stats,
      upstreamUrl: target.url,
    });
    const sessions = await startSessions(context, redis, records, (i) => observability.invocationStarted(i));
    const cache = await startResponseCache(context, redis);
    const budget = await startBudget(context, redis);
    const upstream = await startUpstream(context, { target, redis, budget, observability });
    const pipeline = buildPipeline(context, {
      redis,
      cache,
      budget: budget.port,
      upstream: upstream.port,
      observability,
    });
    const lifecycle = createBrokerLifecycle(context, {
      redis,
      pipeline,
      cache,
      gate: budget.gate,
      observability,
    });
    const gateway = await startGateway(context, {
      upstreamUrl: target.url,
      pipeline,
      sessions,
      budget: budget.port,
      observability,
      telemetry,
      webhooks: lifecycle.webhooks,
    });
    const ipc = await startIpc(context, {
      startedAt,
      upstreamUrl: target.url,
      gateway: { server: gateway.gateway, url: gateway.url },
      redis,
      sessions,
      pipeline,
      cache,
      budget,
      queue: upstream.queue,
      observability,
      telemetry,
      lifecycle: lifecycle.facade,
      shutdown: () => void stop.close(),
    });
    await lifecycle.relayEvents((method, event) => ipc.publish(method, event));
    await lifecycle.start();
    observability.start(gaugeSources(budget.gate, upstream.queue), config.observability.gaugeIntervalMs);
    const where = {
      gateway: gateway.url,
      socket: resolved.socketPath,
      redis: describeRedisUrl(redis.location.url),
    };
    logger.info({ ...where, upstream: target.url, tracing: telemetry.tracingEnabled }, "ao-broker started");
    return {
      gatewayUrl: gateway.url,
      socketPath: resolved.socketPath,
      upstreamUrl: target.url,
      redis: { url: redis.location.url, source: redis.location.source, namespace: redis.prefix },
      simulated: target.simulated,
      config,
      stopped: stop.stopped,
      close: stop.close,
    };
  } catch (error) {
    await shutdown.run();
    throw error;
  }
}

/** GitHub with the PAT, or with `simulate` the simulator the caller starts (closed last). */
async function upstreamTarget(
  context: BrokerContext,
  startSimulator: StartBrokerOptions["startSimulator"],
): Promise<{ url: string; token: string | undefined; simulated: boolean }> {
  const { config, resolved } = context;
  if (!config.simulate)
    return { url: config.upstream.url, token: resolved.token?.reveal(), simulated: false };
  if (!startSimulator)
    throw new AoError(
      CommonErrors.AO_ERR_CONFIG_INVALID,
      "simulate: this broker was started without a simulator to run (`ao-broker start` has one; a program calling startBroker passes startSimulator)",
    );
  const simulator = await startSimulator();
  context.shutdown.add("simulator", () => simulator.close());
  return { url: simulator.url, token: simulator.token, simulated: true };
}

/** close() runs the shutdown sequence once, however often and from wherever it is called. */
function stopOnce(context: BrokerContext): { stopped: Promise<void>; close: () => Promise<void> } {
  let markStopped: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    markStopped = resolve;
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      context.logger.info("ao-broker stopping: draining in-flight requests");
      await context.shutdown.run();
      context.logger.info("ao-broker stopped");
      markStopped();
    })();
    return closing;
  };
  return { stopped, close };
}
