/**
 * The lifecycle for the composition root: one poller per Redis (the broker holding the lease runs
 * it, the others forward to it; lifecycle-wiring.ts), the webhook receiver when a secret is set, the
 * facade the IPC methods use, and the relay of published lifecycle events to IPC subscribers. The
 * settings are validated at start-up so a bad key fails with its name. The poller starts last,
 * once both edges serve; a cycle running at the stop finishes first, and its requests may wait for
 * an upstream answer.
 */
import {
  createRedisDeliveryDedupe,
  createWebhookHandler,
  type LifecycleConfig,
  resolveLifecycleConfig,
  type WebhookHandler,
} from "../../lifecycle/index.js";
import { type BrokerContext, SHUTDOWN_STEP_TIMEOUT_MS } from "../broker-context.js";
import type { BudgetGate } from "../budget/index.js";
import type { ResponseCache } from "../cache/response-cache.js";
import { createWebhookPatcher } from "../cache/webhook-patcher.js";
import type { LifecycleFacade } from "../ipc/ipc-handlers.js";
import type { BrokerObservability } from "../observability/observability.js";
import type { BrokerPipeline } from "../pipeline/build-pipeline.js";
import type { BrokerRedis } from "../redis/start-redis.js";
import type { LifecycleLeader } from "./lifecycle-leader.js";
import { lifecycleEventChannel } from "./lifecycle-ports.js";
import { createLifecycleLeader } from "./lifecycle-wiring.js";

export interface BrokerLifecycle {
  readonly leader: LifecycleLeader | undefined;
  readonly webhooks: WebhookHandler | undefined;
  /** What the IPC lifecycle.* methods call; undefined without a lifecycle. */
  readonly facade: LifecycleFacade | undefined;
  /** Forwards every published lifecycle event to `publish` as `lifecycle.<type>`. */
  relayEvents(publish: (method: string, event: unknown) => void): Promise<void>;
  /** Starts the poller (when enabled) and adds its stop step. */
  start(): Promise<void>;
}

export function createBrokerLifecycle(
  context: BrokerContext,
  parts: {
    readonly redis: BrokerRedis;
    readonly pipeline: BrokerPipeline;
    readonly cache: ResponseCache;
    readonly gate: BudgetGate;
    readonly observability: BrokerObservability;
  },
): BrokerLifecycle {
  const { config, resolved, logger, shutdown } = context;
  const r = parts.redis;
  const settings = config.lifecycle.settings as Partial<LifecycleConfig>;
  const lifecycleConfig = config.lifecycle.enabled ? resolveLifecycleConfig(settings) : undefined;
  const leader = config.lifecycle.enabled
    ? createLifecycleLeader({
        redis: r.redis,
        pubsub: r.pubsub,
        prefix: r.prefix,
        pipeline: parts.pipeline.pipeline,
        classify: parts.pipeline.classify,
        cache: parts.cache,
        gate: parts.gate,
        observability: parts.observability,
        settings,
        timing: config.lifecycle,
        logger,
        refresh: parts.pipeline.refresh,
      })
    : undefined;
  const webhookSecret = resolved.webhookSecret?.reveal();
  const webhooks =
    leader && lifecycleConfig && webhookSecret
      ? createWebhookHandler({
          secret: webhookSecret,
          lifecycle: leader,
          dedupe: createRedisDeliveryDedupe({
            client: r.redis,
            keyPrefix: r.prefix,
            ttlMs: lifecycleConfig.webhookDedupeTtlMs,
          }),
          maxBodyBytes: lifecycleConfig.webhookMaxBodyBytes,
          ...(parts.pipeline.webhooks
            ? {
                patch: createWebhookPatcher({
                  cache: parts.cache,
                  registry: parts.pipeline.registry,
                  liveness: parts.pipeline.webhooks,
                  gatherMs: lifecycleConfig.webhookGatherMs,
                  logger: logger.child({ component: "webhook-patcher" }),
                }),
              }
            : {}),
          logger: logger.child({ component: "webhooks" }),
        })
      : undefined;
  return {
    leader,
    webhooks,
    facade: leader ? lifecycleFacade(leader) : undefined,
    relayEvents: async (publish) => {
      const unsubscribe = await r.pubsub.subscribe(lifecycleEventChannel(r.prefix), (message) => {
        try {
          const event = JSON.parse(message.toString("utf8")) as { type?: string };
          if (typeof event.type === "string") publish(`lifecycle.${event.type}`, event);
        } catch {
          // not an event
        }
      });
      shutdown.add("lifecycle events", unsubscribe, r.stepTimeout());
    },
    start: async () => {
      if (!leader) return;
      await leader.start();
      shutdown.add(
        "lifecycle leader",
        () => leader.close(),
        r.stepTimeout(config.upstream.timeoutMs + SHUTDOWN_STEP_TIMEOUT_MS),
      );
    },
  };
}

function lifecycleFacade(leader: LifecycleLeader): LifecycleFacade {
  return {
    watch: async (input) => {
      await leader.watch({
        id: input.sessionId,
        repo: input.repo,
        branch: input.branch,
        ...(input.pr ? { pr: input.pr } : {}),
      });
    },
    unwatch: (sessionId) => leader.unwatch(sessionId),
    status: async () => (await leader.status()) as { sessions: unknown[] } & Record<string, unknown>,
  };
}
