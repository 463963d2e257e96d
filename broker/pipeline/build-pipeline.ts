/**
 * The request pipeline for the composition root: the classifier (GitHub's schema, the freshness
 * policy), the batching layer when batching is on (each scheduler flushes at shutdown, given an
 * upstream answer's time), and the layers in their one order (create-gateway-pipeline.ts).
 */
import { loadGitHubSchema } from "../../github/index.js";
import { resolveLifecycleConfig } from "../../lifecycle/index.js";
import { BatchScheduler, MutationBatcher, RepeatTracker } from "../batch/index.js";
import { type BrokerContext, SHUTDOWN_STEP_TIMEOUT_MS } from "../broker-context.js";
import { GraphQLAnalyzer } from "../cache/graphql-analyzer.js";
import { RefreshRegistry } from "../cache/refresh-registry.js";
import type { ResponseCache } from "../cache/response-cache.js";
import { WebhookLiveness } from "../cache/webhook-liveness.js";
import type { BrokerObservability } from "../observability/observability.js";
import type { BrokerRedis } from "../redis/start-redis.js";
import { rateLimitProbe } from "../upstream/rate-limit-probe.js";
import { batchLayer } from "./batch-layer.js";
import { type ClassifyInput, classifyRequest, type FreshnessPolicy, type RequestClass } from "./classify.js";
import { createGatewayPipeline } from "./create-gateway-pipeline.js";
import type { BudgetPort, UpstreamPort } from "./ports.js";
import { RefreshRunner } from "./refresh-runner.js";
import type { Handler } from "./types.js";

export type Classify = (input: ClassifyInput) => RequestClass;

export interface BrokerPipeline {
  readonly pipeline: Handler;
  readonly classify: Classify;
  /** Refresh once, for everyone (decision 0014); undefined when cache.refresh.enabled is off. */
  readonly refresh: RefreshRunner | undefined;
  /** Agents' recent reads (decision 0014); undefined when cache.refresh.enabled is off. */
  readonly registry: RefreshRegistry | undefined;
  /** Whether webhooks arrive (decision 0021); undefined without a webhook secret or a lifecycle. */
  readonly webhooks: WebhookLiveness | undefined;
}

export function buildPipeline(
  context: BrokerContext,
  parts: {
    readonly redis: BrokerRedis;
    readonly cache: ResponseCache;
    readonly budget: BudgetPort;
    readonly upstream: UpstreamPort;
    readonly observability: BrokerObservability;
  },
): BrokerPipeline {
  const { config, logger, shutdown } = context;
  const { observability } = parts;
  const schema = loadGitHubSchema();
  const analyzer = new GraphQLAnalyzer({
    schema,
    maxDocuments: config.cache.analyzerMaxDocuments,
    maxAnalyses: config.cache.analyzerMaxAnalyses,
  });
  const policy: FreshnessPolicy = {
    restFreshMs: config.cache.restFreshMs,
    finalAnswerMs: config.cache.finalAnswerMs,
    graphqlFreshMs: config.cache.graphqlFreshMs,
    // Only a lifecycle poller vouches; without one the setting would never apply anyway.
    guardedFreshMs: config.lifecycle.enabled ? config.cache.guardedFreshMs : 0,
  };
  const classify: Classify = (input) => classifyRequest(input, analyzer, policy);
  const batch = config.batching.enabled
    ? batchLayer({
        repeats: new RepeatTracker({
          windowMs: config.batching.repeatWindowMs,
          maxEntries: config.batching.repeatMaxEntries,
        }),
        createScheduler: (send) =>
          new BatchScheduler({
            send,
            schema,
            budgetsMs: config.batching.latencyBudgetMs,
            maxMembers: config.batching.maxMembers,
            maxCost: config.batching.maxCost,
            analysisCacheEntries: config.batching.analysisCacheEntries,
            ...(config.batching.partnerHold.enabled ? { partnerHold: config.batching.partnerHold } : {}),
            ...(config.batching.tightBudget.enabled
              ? {
                  tightBudget: {
                    ...config.batching.tightBudget,
                    budgetWindowMs: config.budget.windowSeconds * 1000,
                  },
                }
              : {}),
          }),
        onScheduler: (scheduler) =>
          shutdown.add(
            "batch scheduler",
            () => scheduler.close({ flush: true }),
            config.upstream.timeoutMs + SHUTDOWN_STEP_TIMEOUT_MS,
          ),
        ...(config.batching.mutations.windowMs > 0 && config.batching.mutations.maxMembers > 1
          ? {
              createMutationBatcher: (send) =>
                new MutationBatcher({
                  send,
                  schema,
                  windowMs: config.batching.mutations.windowMs,
                  busyWithinMs: config.batching.mutations.busyWithinMs,
                  maxMembers: config.batching.mutations.maxMembers,
                }),
              onMutationBatcher: (batcher) =>
                shutdown.add(
                  "write batcher",
                  () => batcher.close(),
                  config.upstream.timeoutMs + SHUTDOWN_STEP_TIMEOUT_MS,
                ),
            }
          : {}),
        refreshDelayMs: config.cache.refresh.batchWindowMs,
        captureContext: (request) => observability.captureContext(request),
        traceFlush: (members, request, fn) => observability.traceFlush(members, request, fn),
      })
    : undefined;
  const refreshConfig = config.cache.refresh;
  const registry = refreshConfig.enabled
    ? new RefreshRegistry({
        redis: parts.redis.redis,
        prefix: parts.redis.prefix,
        recentReadMs: refreshConfig.recentReadMs,
        maxPerTag: refreshConfig.maxPerTag,
      })
    : undefined;
  // Webhooks as the primary signal (decision 0021): only where they can arrive at all.
  const lifecycleConfig =
    config.lifecycle.enabled && context.resolved.webhookSecret
      ? resolveLifecycleConfig(config.lifecycle.settings)
      : undefined;
  const webhooks = lifecycleConfig
    ? new WebhookLiveness({
        redis: parts.redis.redis,
        prefix: parts.redis.prefix,
        stretch: lifecycleConfig.webhookPollStretch,
        liveMs: lifecycleConfig.webhookLiveMs,
        // Sixty reads per liveness window: the shared time is never more than a sixtieth behind.
        readEveryMs: lifecycleConfig.webhookLiveMs / 60,
      })
    : undefined;
  const pipeline = createGatewayPipeline({
    vouchStretch: webhooks ? () => webhooks.stretch() : undefined,
    batch,
    registry,
    staleWhileRevalidateMs: config.cache.staleWhileRevalidateMs,
    onUpstreamRead: (read) => observability.recordUpstreamRead(read),
    cache: parts.cache,
    budget: parts.budget,
    upstream: parts.upstream,
    logger,
    probe: rateLimitProbe(),
    shared: { redis: parts.redis.redis, pubsub: parts.redis.pubsub, prefix: parts.redis.prefix },
    coalesce: config.coalesce,
  });
  const refresh = registry
    ? new RefreshRunner({
        cache: parts.cache,
        registry,
        pipeline,
        classify,
        logger: logger.child({ component: "refresh" }),
        windowMs: refreshConfig.windowMs,
        recentReadMs: refreshConfig.recentReadMs,
        maxAnswers: refreshConfig.maxAnswers,
        // Never held past the staleness bound: a hold ends by half of it, the refresh's own round trip
        // fitting in the other half.
        maxHoldMs:
          config.cache.staleWhileRevalidateMs > 0
            ? Math.min(refreshConfig.cycleHoldMs, config.cache.staleWhileRevalidateMs / 2)
            : refreshConfig.cycleHoldMs,
        staleWhileRevalidateMs: config.cache.staleWhileRevalidateMs,
        deadlineMs: config.upstream.timeoutMs,
        run: async (request, send) => {
          const response = await observability.traceBrokerRequest(request, send);
          observability.recordAnswer(request.caller, request, response, response.status);
          return response;
        },
      })
    : undefined;
  if (refresh) {
    refresh.start();
    // Before the batch scheduler closes (steps run in reverse): a refresh in flight still merges.
    shutdown.add("refresh", () => refresh.close(), config.upstream.timeoutMs + SHUTDOWN_STEP_TIMEOUT_MS);
  }
  return { pipeline, classify, refresh, registry, webhooks };
}
