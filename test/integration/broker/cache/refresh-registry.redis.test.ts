/**
 * The refresh registry (broker/cache/refresh-registry.ts) on a real redis-server: reads are found
 * by the tags they read, bounded per tag and in time, every key expires, `repo:` tags are not
 * registered, one broker writes a key at most once per noteEveryMs, and pending markers are what
 * the cache's lookup reads.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replaySpec } from "../../../../broker/cache/core/refresh-plan.js";
import { RefreshRegistry } from "../../../../broker/cache/refresh-registry.js";
import { ResponseCache } from "../../../../broker/cache/response-cache.js";
import { createRedisClient } from "../../../../broker/index.js";
import { startTestRedis, type TestRedis } from "../../../support/redis.js";

let redis: TestRedis;
let client: ReturnType<typeof createRedisClient>;
beforeAll(async () => {
  redis = await startTestRedis();
  client = createRedisClient(redis.url);
});
afterAll(async () => {
  client?.disconnect();
  await redis?.stop();
});

const spec = (n: number) =>
  replaySpec({ method: "GET", path: `/repos/acme/widgets/pulls/${n}`, headers: {} }) as NonNullable<
    ReturnType<typeof replaySpec>
  >;

describe("the refresh registry", () => {
  it("finds reads by tag, keeps the newest maxPerTag within the window, and lets every key expire", async () => {
    const prefix = redis.prefix();
    let now = 1_000_000;
    const registry = new RefreshRegistry({
      redis: client,
      prefix,
      recentReadMs: 10_000,
      maxPerTag: 3,
      noteEveryMs: 0,
      now: () => now,
    });
    for (let i = 1; i <= 5; i++) {
      now += 100;
      await registry.noteRead(`k${i}`, spec(i), ["num:acme/widgets#1:checks", "repo:acme/widgets"]);
    }
    const found = await registry.find(["num:acme/widgets#1:checks", "repo:acme/widgets"]);
    expect(found.map((h) => h.hashed).sort()).toEqual(["k3", "k4", "k5"]);
    expect(found.find((h) => h.hashed === "k5")).toMatchObject({
      readAt: now,
      tags: ["num:acme/widgets#1:checks"],
      spec: spec(5),
    });
    // repo: tags are not registered at all.
    expect(await client.exists(`${prefix}:rr:repo:acme/widgets`)).toBe(0);
    const ttl = await client.pttl(`${prefix}:rr:num:acme/widgets#1:checks`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(10_000);
    expect(await client.pttl(`${prefix}:rq:k5`)).toBeGreaterThan(0);
    // Past the window, nothing is found any more.
    now += 10_001;
    expect(await registry.find(["num:acme/widgets#1:checks"])).toEqual([]);
  });

  it("writes a key at most once per noteEveryMs from one broker", async () => {
    const prefix = redis.prefix();
    let now = 2_000_000;
    const registry = new RefreshRegistry({
      redis: client,
      prefix,
      recentReadMs: 60_000,
      noteEveryMs: 5_000,
      now: () => now,
    });
    await registry.noteRead("k", spec(1), ["num:acme/widgets#1:core"]);
    now += 1_000;
    await registry.noteRead("k", spec(1), ["num:acme/widgets#1:core"]);
    expect((await registry.find(["num:acme/widgets#1:core"]))[0]?.readAt).toBe(2_000_000);
    now += 5_000;
    await registry.noteRead("k", spec(1), ["num:acme/widgets#1:core"]);
    expect((await registry.find(["num:acme/widgets#1:core"]))[0]?.readAt).toBe(2_006_000);
  });

  it("writes pending markers the cache's lookup reads, and clears them", async () => {
    const prefix = redis.prefix();
    const cache = new ResponseCache({
      redis: client,
      prefix,
      maxBytes: 1024 * 1024,
      maxEntryBytes: 1024 * 1024,
      retainSeconds: 3600,
    });
    const registry = new RefreshRegistry({ redis: client, prefix, recentReadMs: 60_000 });
    const key = "R\u0000GET /repos/acme/widgets/pulls/1";
    const tag = "num:acme/widgets#1:core";
    await cache.store(key, {
      status: 200,
      headers: {},
      body: Buffer.from("{}"),
      storedAt: Date.now(),
      generations: { [tag]: 0 },
    });
    const moved = await cache.invalidate([tag], { origin: "signal" });
    expect(moved).toMatchObject({ origin: "signal", moves: { [tag]: [0, 1] } });
    const pending = { knownAt: 123, moves: { [tag]: [0, 1] as const } };
    await registry.markPending([{ hashed: ResponseCache.hashKey(key), pending }], 5_000);
    expect((await cache.lookup(key, [tag], [], { pending: true })).pending).toEqual(pending);
    expect((await cache.lookup(key, [tag])).pending).toBeUndefined();
    await registry.clearPending([ResponseCache.hashKey(key)]);
    expect((await cache.lookup(key, [tag], [], { pending: true })).pending).toBeUndefined();
    await cache.close();
  });
});
