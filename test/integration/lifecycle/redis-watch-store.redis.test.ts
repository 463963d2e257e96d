import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisDeliveryDedupe } from "../../../lifecycle/adapters/redis-delivery-dedupe.js";
import { createRedisWatchStore } from "../../../lifecycle/adapters/redis-watch-store.js";
import { createManualClock } from "../../../lifecycle/clock.js";
import { initialSessionState } from "../../../lifecycle/core/session-state.js";
import { createLifecycleService } from "../../../lifecycle/lifecycle-service.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";
import { T0 } from "../../unit/lifecycle/support/facts.js";
import { createFakeGitHub } from "../../unit/lifecycle/support/fake-github.js";

let redis: TestRedis;
let client: Redis;

beforeAll(async () => {
  redis = await startTestRedis();
  client = new Redis({ path: new URL(redis.url).pathname });
});
afterAll(async () => {
  await client?.quit();
  await redis?.stop();
});

describe("Redis watch store", () => {
  it("keeps watches and states under the prefix, in one hash-tagged slot", async () => {
    const keyPrefix = redis.prefix();
    const store = createRedisWatchStore({ client, keyPrefix });
    const watch = { id: "s1", repo: "acme/widgets", branch: "feat/a", pr: 7, watchedAt: T0 };
    await store.putWatch(
      watch,
      initialSessionState({ id: "s1", repo: "acme/widgets", branch: "feat/a", prNumber: 7 }, T0),
    );
    expect((await client.keys(`${keyPrefix}:*`)).sort()).toEqual([
      `${keyPrefix}:{lifecycle}:states`,
      `${keyPrefix}:{lifecycle}:watches`,
    ]);
    const loaded = await store.load();
    expect(loaded.watches).toEqual([watch]);
    expect(loaded.states[0]).toMatchObject({ id: "s1", prNumber: 7, status: "detecting" });
    await store.deleteWatch("s1");
    expect(await store.load()).toEqual({ watches: [], states: [] });
    expect(await client.keys(`${keyPrefix}:*`)).toEqual([]);
  });

  it("saves states only for sessions still watched (an unwatch racing a save leaves no orphan)", async () => {
    const keyPrefix = redis.prefix();
    const store = createRedisWatchStore({ client, keyPrefix });
    const state = initialSessionState({ id: "gone", repo: "a/b", branch: "x" }, T0);
    await store.putStates([state]);
    expect(await client.hlen(`${keyPrefix}:{lifecycle}:states`)).toBe(0);
  });

  it("skips unreadable records instead of failing the start", async () => {
    const keyPrefix = redis.prefix();
    await client.hset(
      `${keyPrefix}:{lifecycle}:watches`,
      "bad",
      "{not json",
      "s2",
      JSON.stringify({ id: "s2", repo: "a/b", branch: "x", watchedAt: T0 }),
    );
    await client.hset(`${keyPrefix}:{lifecycle}:states`, "s2", JSON.stringify({ v: 99, id: "s2" }));
    const loaded = await createRedisWatchStore({ client, keyPrefix }).load();
    expect(loaded.watches.map((w) => w.id)).toEqual(["s2"]);
    expect(loaded.states).toEqual([]);
  });

  it("lets a restarted lifecycle resume from Redis without raising events again", async () => {
    const keyPrefix = redis.prefix();
    const clock = createManualClock(T0);
    const gh = createFakeGitHub(clock.now);
    for (let n = 1; n <= 3; n++) gh.addPr({ repo: "acme/widgets", number: n, headRef: `b${n}` });
    const first = createLifecycleService({
      ports: gh.ports,
      store: createRedisWatchStore({ client, keyPrefix }),
      clock,
    });
    for (let n = 1; n <= 3; n++)
      await first.watch({ id: `s${n}`, repo: "acme/widgets", branch: `b${n}`, pr: n });
    await first.runCycle();
    await first.close();
    expect(gh.events.filter((e) => e.type === "pr-detected")).toHaveLength(3);

    gh.events.length = 0;
    const ownStore = createRedisWatchStore({ location: redis.url, keyPrefix });
    const second = createLifecycleService({ ports: gh.ports, store: ownStore, clock });
    await second.runCycle();
    expect(second.status().sessions.map((s) => [s.id, s.status])).toEqual([
      ["s1", "mergeable"],
      ["s2", "mergeable"],
      ["s3", "mergeable"],
    ]);
    expect(gh.events).toEqual([]);
    await second.close();
    await ownStore.close();
  });
});

describe("Redis delivery dedupe", () => {
  it("answers first-seen once per delivery id across instances, and forgets on request", async () => {
    const keyPrefix = redis.prefix();
    const a = createRedisDeliveryDedupe({ client, keyPrefix, ttlMs: 60_000 });
    const b = createRedisDeliveryDedupe({ client, keyPrefix, ttlMs: 60_000 });
    expect(await a.firstSeen("d1")).toBe(true);
    expect(await b.firstSeen("d1")).toBe(false);
    await b.forget("d1");
    expect(await a.firstSeen("d1")).toBe(true);
    expect(await client.pttl(`${keyPrefix}:{lifecycle}:delivery:d1`)).toBeGreaterThan(50_000);
  });
});
