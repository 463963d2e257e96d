/**
 * A gateway stack for tests: real Redis (sessions, tokens, cache, coalescing locks), the real
 * GatewayServer and pipeline on an ephemeral port, and the upstream/budget ports supplied by the test
 * (counting fakes, or the real queue and gate). Several stacks on one Redis and prefix behave like
 * several brokers.
 */
import { request as httpRequest } from "node:http";
import type { Redis } from "ioredis";
import { GraphQLAnalyzer } from "../../broker/cache/graphql-analyzer.js";
import { ResponseCache } from "../../broker/cache/response-cache.js";
import { type GatewayConnectionLimits, GatewayServer } from "../../broker/gateway/gateway-server.js";
import { createRedisClient } from "../../broker/index.js";
import { classifyRequest, type FreshnessPolicy } from "../../broker/pipeline/classify.js";
import { createGatewayPipeline } from "../../broker/pipeline/create-gateway-pipeline.js";
import type { BudgetPort, UpstreamPort } from "../../broker/pipeline/ports.js";
import { PubSubHub } from "../../broker/redis/pubsub-hub.js";
import { CallerResolver } from "../../broker/sessions/caller-resolver.js";
import { SessionStore } from "../../broker/sessions/session-store.js";
import { silentLogger } from "../../common/index.js";
import { loadGitHubSchema } from "../../github/index.js";

export interface GatewayStack {
  readonly url: string;
  readonly port: number;
  readonly store: SessionStore;
  readonly cache: ResponseCache;
  readonly gateway: GatewayServer;
  readonly redis: Redis;
  /** The key prefix the stack writes under. */
  readonly prefix: string;
  close(): Promise<void>;
}

export interface GatewayStackOptions {
  readonly redisUrl: string;
  readonly prefix: string;
  readonly upstream: UpstreamPort;
  readonly budget: BudgetPort;
  readonly freshness?: Partial<FreshnessPolicy>;
  readonly maxBodyBytes?: number;
  readonly upstreamBase?: string;
  readonly defaultDeadlineMs?: number;
  readonly connections?: GatewayConnectionLimits;
}

export async function startGatewayStack(options: GatewayStackOptions): Promise<GatewayStack> {
  const redis = createRedisClient(options.redisUrl);
  const subscriber = createRedisClient(options.redisUrl);
  const pubsub = new PubSubHub(subscriber);
  const logger = silentLogger();
  const store = new SessionStore({
    redis,
    prefix: options.prefix,
    sessionTokenTtlSeconds: 3600,
    invocationTokenTtlSeconds: 600,
  });
  const resolver = new CallerResolver({ store, pubsub });
  await resolver.start();
  const cache = new ResponseCache({
    redis,
    prefix: options.prefix,
    maxBytes: 64 * 1024 * 1024,
    maxEntryBytes: 4 * 1024 * 1024,
    retainSeconds: 3600,
  });
  const analyzer = new GraphQLAnalyzer({ schema: loadGitHubSchema() });
  const policy: FreshnessPolicy = {
    restFreshMs: options.freshness?.restFreshMs ?? 10_000,
    ...(options.freshness?.finalAnswerMs !== undefined
      ? { finalAnswerMs: options.freshness.finalAnswerMs }
      : {}),
    ...(options.freshness?.guardedFreshMs !== undefined
      ? { guardedFreshMs: options.freshness.guardedFreshMs }
      : {}),
    graphqlFreshMs: options.freshness?.graphqlFreshMs ?? {
      checks: 10_000,
      pullRequest: 15_000,
      issue: 30_000,
      other: 15_000,
    },
  };
  const pipeline = createGatewayPipeline({
    cache,
    budget: options.budget,
    upstream: options.upstream,
    logger,
    shared: { redis, pubsub, prefix: options.prefix },
  });
  const gateway = new GatewayServer({
    host: "127.0.0.1",
    port: 0,
    publicHost: "api.github.localhost",
    blobHosts: [],
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    connections: options.connections,
    defaultDeadlineMs: options.defaultDeadlineMs ?? 30_000,
    allowRemoteMetrics: false,
    upstreamBase: options.upstreamBase ?? "https://api.github.com",
    pipeline,
    authenticate: async (token) => resolver.resolve(token),
    classify: (input) => classifyRequest(input, analyzer, policy),
    sessionView: (id, resource, weight) => options.budget.sessionView(id, resource, weight),
    logger,
  });
  await gateway.start();
  return {
    url: gateway.url,
    port: gateway.port,
    store,
    cache,
    gateway,
    redis,
    prefix: options.prefix,
    close: async () => {
      await gateway.close(1000);
      await resolver.close();
      await cache.close();
      await pubsub.close();
      redis.disconnect();
      subscriber.disconnect();
    },
  };
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  json<T = unknown>(): T;
}

/** One HTTP request with full control of the request line (absolute URIs for proxy mode). */
export function rawRequest(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method: options.method ?? "GET",
        path: options.path,
        headers: options.headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const body = Buffer.concat(chunks);
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
          resolve({
            status: res.statusCode ?? 0,
            headers,
            body,
            json: <T>() => JSON.parse(body.toString("utf8")) as T,
          });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}
