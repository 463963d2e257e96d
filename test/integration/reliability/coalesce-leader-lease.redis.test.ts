/**
 * The cross-broker coalescing lock is a lease: short, renewed by its leader while the flight
 * lasts. A leader that outlives the lease's length still has its followers (renewal), and a
 * leader that died (kill -9: nobody renews, nobody publishes) holds its followers only until the
 * lease runs out — found by the kill -9 e2e test, where a read waited out the old 60 s lock.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResponseCache } from "../../../broker/cache/response-cache.js";
import { createRedisClient } from "../../../broker/index.js";
import { coalesceLayer } from "../../../broker/pipeline/coalesce-layer.js";
import { PubSubHub } from "../../../broker/redis/pubsub-hub.js";
import { silentLogger } from "../../../common/index.js";
import { prReadAnswer, prReadRequest } from "../../support/pr-read-request.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

let redis: TestRedis;
const clients: Redis[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await redis?.stop();
});

function broker(prefix: string, lockTtlMs: number) {
  const client = createRedisClient(redis.url);
  const subscriber = createRedisClient(redis.url);
  clients.push(client, subscriber);
  return {
    client,
    layer: coalesceLayer({
      logger: silentLogger(),
      shared: { redis: client, pubsub: new PubSubHub(subscriber), prefix },
      lockTtlMs,
    }),
  };
}

const answer = prReadAnswer;

describe("the cross-broker coalescing lock", () => {
  it("stays with a live leader whose flight outlasts the lock's length, so followers still share it", async () => {
    const a = broker("live", 300);
    const b = broker("live", 300);
    let calls = 0;
    const slow = async () => {
      calls++;
      await sleep(1_200);
      return answer;
    };
    const leader = a.layer(slow)(prReadRequest(30_000));
    await sleep(100);
    const follower = await b.layer(slow)(prReadRequest(30_000));
    expect((await leader).status).toBe(200);
    expect(follower.cache).toBe("COALESCED");
    expect(calls).toBe(1);
  });

  it("is given up soon after its leader died, not at a long TTL", async () => {
    const b = broker("dead", 1_000);
    // What a killed broker leaves: its lock, last renewed just before the kill, and no answer.
    const key = `dead:inflight:${ResponseCache.hashKey(`${prReadRequest(30_000).classification.cacheKey}\u0000\u0000`)}`;
    await b.client.set(key, "crashed-broker:flight", "PX", 1_000);
    let calls = 0;
    const started = Date.now();
    const response = await b.layer(async () => {
      calls++;
      return answer;
    })(prReadRequest(30_000));
    expect(response.status).toBe(200);
    expect(calls).toBe(1);
    expect(Date.now() - started).toBeGreaterThan(500);
    expect(Date.now() - started).toBeLessThan(2_500);
  });
});
