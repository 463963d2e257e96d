/**
 * The broker's Redis, started for the composition root: where it is (explicit, local, or a private
 * redis-server), the main connection (fails fast while Redis is away: no offline queue, one retry, so
 * the request path falls back at once instead of waiting for a reconnect), the subscriber, the
 * health watch and the pub/sub hub. Stop steps that talk to Redis get a short deadline while Redis
 * is known to be gone: they would only wait for a reconnect that is not coming.
 */
import type { Redis } from "ioredis";
import {
  type BrokerContext,
  REDIS_DOWN_STEP_TIMEOUT_MS,
  SHUTDOWN_STEP_TIMEOUT_MS,
} from "../broker-context.js";
import { claimIdentityNamespace, connectRedis, type IdentityNamespace } from "./identity-namespace.js";
import { PubSubHub } from "./pubsub-hub.js";
import { RedisHealth } from "./redis-health.js";
import { createRedisClient } from "./redis-url.js";
import { type ResolvedRedis, resolveRedis } from "./resolve-redis.js";

export interface BrokerRedis {
  readonly location: ResolvedRedis;
  /** The identity-scoped key prefix (identity-namespace.ts): every key of this broker is under it. */
  readonly prefix: string;
  /** Whose token this broker holds, and how that was established. */
  readonly identity: IdentityNamespace;
  readonly redis: Redis;
  readonly health: RedisHealth;
  readonly pubsub: PubSubHub;
  /** A stop step's deadline: `healthyMs` while Redis answers, a short one while it does not. */
  stepTimeout(healthyMs?: number): () => number;
}

export async function startBrokerRedis(
  context: BrokerContext,
  options: {
    readonly probeLocal: boolean;
    /** The upstream and token whose identity scopes the keys. */
    readonly upstream: {
      readonly url: string;
      readonly token: string | undefined;
      readonly simulated: boolean;
    };
  },
): Promise<BrokerRedis> {
  const { config, resolved, logger, shutdown } = context;
  const location = await resolveRedis({
    url: config.redis.url,
    stateDir: resolved.stateDir,
    probeLocal: options.probeLocal,
    startTimeoutMs: config.redis.startTimeoutMs,
  });
  if (location.embedded) shutdown.add("embedded redis", () => location.embedded?.stop());
  const redis = createRedisClient(location.url, {
    connectionName: "aob:main",
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    lazyConnect: true,
  });
  const subscriber = createRedisClient(location.url, { connectionName: "aob:sub" });
  shutdown.add("redis connections", () => {
    redis.disconnect();
    subscriber.disconnect();
  });
  await connectRedis(redis, location.url);
  // Keys are scoped by the token's identity, so brokers of two identities never share state. A
  // simulator's port changes every start: its identity is named, not taken from its URL.
  const identity = await claimIdentityNamespace({
    redis,
    basePrefix: config.redis.prefix,
    upstreamUrl: options.upstream.url,
    identityUpstream: options.upstream.simulated ? "ao-broker:simulator" : undefined,
    token: options.upstream.token,
    timeoutMs: config.upstream.timeoutMs,
    attempts: config.redis.identityAttempts,
    retryDelayMs: config.redis.identityRetryDelayMs,
    logger,
  });
  const health = new RedisHealth(redis, logger.child({ component: "redis" }));
  const stepTimeout =
    (healthyMs = SHUTDOWN_STEP_TIMEOUT_MS) =>
    () =>
      health.healthy ? healthyMs : REDIS_DOWN_STEP_TIMEOUT_MS;
  const pubsub = new PubSubHub(subscriber);
  shutdown.add("pubsub", () => pubsub.close(), stepTimeout());
  return { location, prefix: identity.namespace, identity, redis, health, pubsub, stepTimeout };
}
