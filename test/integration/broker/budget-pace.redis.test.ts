/**
 * Decision 0008 through the whole broker (real redis-server, the simulator): a paced window
 * answers a refusal it can predict at once — over HTTP in GitHub's secondary-limit shape (429,
 * retry-after), over IPC as AO_ERR_BUDGET_EXHAUSTED with retryAfter — instead of after the
 * caller's whole deadline; sessions the shim auto-registers in one checkout share one parent
 * budget, sessions opened on purpose do not.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrokerClient, connectBroker } from "../../../client/index.js";
import { isAoError } from "../../../common/index.js";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { type BrokerUnderTest, startBrokerUnderTest } from "../../support/broker-harness.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

let redis: TestRedis;
let sim: RunningSimulator;
let broker: BrokerUnderTest;
let client: BrokerClient;
let prefix: string;

beforeAll(async () => {
  redis = await startTestRedis();
  // 200 requests per 600 s: a burst of 10, then one every 3 s.
  sim = await startSimulator({ port: 0, limits: { core: 200 }, windowSeconds: 600 });
  prefix = redis.prefix();
  broker = await startBrokerUnderTest({
    redisUrl: redis.url,
    prefix,
    upstreamUrl: sim.url,
    config: {
      cache: { restFreshMs: 0 },
      lifecycle: { enabled: false },
      gateway: { defaultDeadlineMs: 2_000 },
      budget: {
        reserve: { lifecycle: 0, interactive: 0 },
        pace: { burstFraction: 0.05, burstMin: 0, keepFraction: 0 },
        windowSeconds: 600,
      },
    },
  });
  client = await connectBroker({ socketPath: broker.broker.socketPath });
});
afterAll(async () => {
  await client?.close();
  await broker?.close();
  await sim?.close();
  await redis?.stop();
});

let page = 0;
const get = (token: string) =>
  fetch(`${broker.broker.gatewayUrl}/repos/acme/widgets/pulls?state=all&per_page=1&page=${++page}`, {
    headers: { authorization: `token ${token}` },
    signal: AbortSignal.timeout(20_000),
  });

describe("a paced window", () => {
  it("answers a refusal it can predict at once, in GitHub's secondary-limit shape, over HTTP and IPC", async () => {
    const { token } = await broker.openSession("pacer");
    let first: Response | undefined;
    for (let i = 0; i < 12 && !first; i++) {
      const res = await get(token);
      if (res.status !== 200) first = res;
      else await res.arrayBuffer();
    }
    expect(first?.status).toBe(429);
    const retryAfter = Number(first?.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(4);
    expect((((await first?.json()) ?? {}) as { message?: string }).message).toMatch(
      /^You have exceeded a secondary rate limit/,
    );
    // The burst (10) went upstream, no more: the pace held, GitHub refused nothing.
    expect(sim.stats().resources.core.used).toBeLessThanOrEqual(11);
    expect(sim.stats().requests.rateLimited).toBe(0);

    const started = Date.now();
    const err = await client
      .rest({
        sessionId: "pacer",
        method: "GET",
        path: "/repos/acme/widgets/pulls?page=999",
        deadlineMs: 2_000,
      })
      .catch((e: unknown) => e);
    // Answered at once, not after the 2 s deadline.
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(isAoError(err, "AO_ERR_BUDGET_EXHAUSTED")).toBe(true);
    expect((err as { data: Record<string, unknown> }).data).toMatchObject({
      reason: "pace",
      predicted: true,
      retryAfter: expect.any(Number),
    });
  });

  it("folds sessions the shim auto-registered in one checkout into one parent budget", async () => {
    const open = (id: string, worktree: string, autoRegistered: boolean) =>
      client.openSession({
        id,
        repo: "acme/widgets",
        worktree,
        ...(autoRegistered ? { autoRegistered } : {}),
      });
    const a = await open("agent-id-1", "/work/checkout-a", true);
    const b = await open("agent-id-2", "/work/checkout-a", true);
    const c = await open("other-agent", "/work/checkout-b", true);
    const d = await open("ao-opened", "/work/checkout-a", false);
    // Re-opening an auto-registered session keeps its group.
    await open("agent-id-1", "/work/checkout-a", false);
    for (const opened of [a, b, c, d]) await (await get(opened.token)).arrayBuffer();
    const inspect = new Redis({ path: redis.server.socketPath });
    try {
      const groups = await inspect.hmget(
        `{${broker.broker.redis.namespace}:budget}:sx:core`,
        "g:agent-id-1",
        "g:agent-id-2",
        "g:other-agent",
        "g:ao-opened",
      );
      expect(groups[0]).toMatch(/^auto:[0-9a-f]{16}$/);
      expect(groups[1]).toBe(groups[0]);
      expect(groups[2]).toMatch(/^auto:/);
      expect(groups[2]).not.toBe(groups[0]);
      expect(groups[3]).toBeNull();
    } finally {
      inspect.disconnect();
    }
  });
});
