/**
 * Shared set-up of the upstream queue tests: a private redis-server, a counting fake upstream,
 * and queues with fast test policies that are closed after each test.
 */
import { randomUUID } from "node:crypto";
import {
  UpstreamClient,
  type UpstreamJob,
  type UpstreamPolicyInput,
  UpstreamQueue,
  type UpstreamQueueOptions,
} from "../../../../broker/upstream/index.js";
import type { TestRedis } from "../../../support/redis.js";
import type { FakeUpstream } from "./fake-upstream.js";

export const FAST_POLICY: UpstreamPolicyInput = {
  concurrency: 4,
  backoffBaseMs: 40,
  backoffMaxMs: 200,
  resetMarginMs: 50,
  mutationSpacingMs: 300,
  agingTickMs: 100,
  lockDurationMs: 2_000,
  stalledIntervalMs: 1_000,
  deadlineGraceMs: 100,
  drainTimeoutMs: 5_000,
};

export class QueueHarness {
  readonly redis: TestRedis;
  readonly fake: FakeUpstream;
  readonly prefix: string;
  readonly #queues: UpstreamQueue[] = [];
  readonly #clients: UpstreamClient[] = [];

  constructor(redis: TestRedis, fake: FakeUpstream) {
    this.redis = redis;
    this.fake = fake;
    this.prefix = redis.prefix();
  }

  client(options: { timeoutMs?: number } = {}): UpstreamClient {
    const client = new UpstreamClient({
      baseUrl: this.fake.url,
      token: "ghp_harnesstoken0000000000",
      ...options,
    });
    this.#clients.push(client);
    return client;
  }

  async queue(
    policy: UpstreamPolicyInput = {},
    options: Partial<UpstreamQueueOptions> & { timeoutMs?: number } = {},
  ): Promise<UpstreamQueue> {
    const { timeoutMs = 2_000, ...rest } = options;
    const workers = rest.workers ?? true;
    const queue = await UpstreamQueue.create({
      redis: this.redis.url,
      prefix: this.prefix,
      requestTimeoutMs: timeoutMs,
      ...(workers ? { client: rest.client ?? this.client({ timeoutMs }) } : {}),
      ...rest,
      workers,
      policy: { ...FAST_POLICY, ...policy },
    });
    this.#queues.push(queue);
    return queue;
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.#queues.splice(0).map((q) => q.close()));
    await Promise.allSettled(this.#clients.splice(0).map((c) => c.close()));
  }
}

export function get(path: string, over: Partial<UpstreamJob> = {}): UpstreamJob {
  return {
    requestId: randomUUID(),
    sessionId: "s1",
    method: "GET",
    path,
    kind: "rest",
    resource: "core",
    priority: "interactive",
    deadlineAt: Date.now() + 10_000,
    ...over,
  };
}

export function post(path: string, over: Partial<UpstreamJob> = {}): UpstreamJob {
  return get(path, { method: "POST", priority: "write", body: Buffer.from("{}"), ...over });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
