/**
 * The way to GitHub for the composition root: the HTTP client holding the PAT, the shared BullMQ
 * queue (its stop step drains this broker's submissions, then waits for the jobs its workers run),
 * the direct path used while Redis is away, and the port the pipeline sends through. Before the
 * broker serves, the budget learns GitHub's real buckets from GET /rate_limit.
 */
import { RATE_LIMIT_ALIAS } from "../batch/index.js";
import { type BrokerContext, SHUTDOWN_STEP_TIMEOUT_MS } from "../broker-context.js";
import { learnBuckets } from "../budget/budget-port.js";
import type { BrokerBudget } from "../budget/start-budget.js";
import type { BrokerObservability } from "../observability/observability.js";
import type { UpstreamPort } from "../pipeline/ports.js";
import type { BrokerRedis } from "../redis/start-redis.js";
import { DegradedUpstream } from "./degraded-upstream.js";
import { UpstreamClient } from "./upstream-client.js";
import { createUpstreamPort } from "./upstream-port.js";
import { UpstreamQueue } from "./upstream-queue.js";

export interface BrokerUpstream {
  readonly client: UpstreamClient;
  readonly queue: UpstreamQueue;
  readonly port: UpstreamPort;
}

export async function startUpstream(
  context: BrokerContext,
  parts: {
    readonly target: { readonly url: string; readonly token: string | undefined };
    readonly redis: BrokerRedis;
    readonly budget: BrokerBudget;
    readonly observability: BrokerObservability;
  },
): Promise<BrokerUpstream> {
  const { config, logger, shutdown } = context;
  const { target, redis: r, budget } = parts;
  const client = new UpstreamClient({
    baseUrl: target.url,
    token: () => target.token,
    timeoutMs: config.upstream.timeoutMs,
    connectTimeoutMs: config.upstream.connectTimeoutMs,
    connections: config.upstream.connections,
    logger: logger.child({ component: "upstream" }),
  });
  shutdown.add("upstream client", () => client.close());
  const queue = new UpstreamQueue({
    redis: r.location.url,
    prefix: r.prefix,
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
  shutdown.add(
    "upstream queue",
    () => queue.close(),
    r.stepTimeout(queue.policy.drainTimeoutMs + config.upstream.timeoutMs + SHUTDOWN_STEP_TIMEOUT_MS),
  );
  await learnBuckets(client, budget.gate, logger, budget.local);
  const degraded = new DegradedUpstream({
    client,
    concurrency: config.queue.degradedConcurrency,
    mutationSpacingMs: config.queue.pacing.mutationSpacingMs,
  });
  const port = createUpstreamPort({ queue, degraded, health: r.health, observability: parts.observability });
  return { client, queue, port };
}
