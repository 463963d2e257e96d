/**
 * A coalescing lock whose release fails because Redis went away as the flight ended must not make
 * later requests for the same answer wait out the lock's TTL (60 s) for an answer nobody will
 * publish. Redis is stopped from inside the leader's upstream call, so the release fails for
 * certain; the lock was written before the stop and survives in the append-only file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRedisClient, type EmbeddedRedis, startEmbeddedRedis } from "../../../broker/index.js";
import { coalesceLayer } from "../../../broker/pipeline/coalesce-layer.js";
import type { Handler } from "../../../broker/pipeline/types.js";
import { PubSubHub } from "../../../broker/redis/pubsub-hub.js";
import { silentLogger } from "../../../common/index.js";
import { prReadAnswer, prReadRequest } from "../../support/pr-read-request.js";

let dir: string;
let server: EmbeddedRedis;
const clients: Redis[] = [];

const start = () => startEmbeddedRedis({ dir, detached: false, persist: true });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const answer = prReadAnswer;

/** A broker's two connections, as create-broker makes them. */
function connections(): { redis: Redis; pubsub: PubSubHub } {
  const redis = createRedisClient(server.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  const subscriber = createRedisClient(server.url);
  clients.push(redis, subscriber);
  return { redis, pubsub: new PubSubHub(subscriber) };
}

async function ready(redis: Redis): Promise<void> {
  while (redis.status !== "ready") await sleep(20);
}

/** A handler whose first upstream call stops Redis before answering. */
function stoppingRedisOnce(): { next: Handler; calls: () => number } {
  let calls = 0;
  return {
    calls: () => calls,
    next: async () => {
      calls++;
      if (calls === 1) await server.stop();
      return answer;
    },
  };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "aob-coalesce-"));
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.disconnect();
  await server?.stop();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("coalescing across a Redis restart", () => {
  describe("when this broker's own lock could not be released", () => {
    it("lets the next request for the answer lead at once instead of waiting for the lock's TTL", async () => {
      server = await start();
      const prefix = "own";
      const { redis, pubsub } = connections();
      await ready(redis);
      // No retried release during this test: the stale lock must be recognised as ours.
      const layer = coalesceLayer({
        logger: silentLogger(),
        shared: { redis, pubsub, prefix },
        releaseRetryMs: 60_000,
      });
      const upstream = stoppingRedisOnce();
      const handler = layer(upstream.next);

      expect((await handler(prReadRequest(20_000))).status).toBe(200);
      server = await start();
      await ready(redis);
      expect(await redis.keys(`${prefix}:inflight:*`)).toHaveLength(1);

      const started = Date.now();
      const second = await handler(prReadRequest(20_000));
      expect(second.status).toBe(200);
      expect(upstream.calls()).toBe(2);
      expect(Date.now() - started).toBeLessThan(2_000);
    }, 30_000);
  });

  describe("when another broker's lock could not be released", () => {
    it("is released by its owner once Redis is back, so the other broker's followers lead soon", async () => {
      server = await start();
      const prefix = "other";
      const a = connections();
      const b = connections();
      await Promise.all([ready(a.redis), ready(b.redis)]);
      const owner = coalesceLayer({ logger: silentLogger(), shared: { ...a, prefix }, releaseRetryMs: 100 });
      const other = coalesceLayer({ logger: silentLogger(), shared: { ...b, prefix } });
      const upstream = stoppingRedisOnce();

      expect((await owner(upstream.next)(prReadRequest(20_000))).status).toBe(200);
      server = await start();
      await Promise.all([ready(a.redis), ready(b.redis)]);

      const started = Date.now();
      const second = await other(upstream.next)(prReadRequest(20_000));
      expect(second.status).toBe(200);
      expect(upstream.calls()).toBe(2);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(await b.redis.keys(`${prefix}:inflight:*`)).toEqual([]);
    }, 30_000);
  });
});
