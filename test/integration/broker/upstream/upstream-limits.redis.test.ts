import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createRedisClient } from "../../../../broker/redis/index.js";
import { LuaScripts } from "../../../../broker/redis/lua-scripts.js";
import { UpstreamErrors, type UpstreamQueue } from "../../../../broker/upstream/index.js";
import { isAoError } from "../../../../common/index.js";
import { startTestRedis, type TestRedis } from "../../../support/redis.js";
import { FakeUpstream } from "./fake-upstream.js";
import { get, post, QueueHarness, sleep } from "./queue-harness.js";

let redis: TestRedis;
let fake: FakeUpstream;
let h: QueueHarness;

beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis.stop();
});
beforeEach(async () => {
  fake = await FakeUpstream.start();
  h = new QueueHarness(redis, fake);
});
afterEach(async () => {
  await h.close();
  await fake.close();
});

/** Waits until a global pause is recorded in Redis; returns when it ends (epoch ms). */
async function pauseInForce(q: UpstreamQueue): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const { pausedUntil } = await q.stats();
    if (pausedUntil > 0) return pausedUntil;
    await sleep(10);
  }
  throw new Error("no pause within 2 s");
}

const SECONDARY = {
  status: 403,
  headers: { "retry-after": "1", "content-type": "application/json" },
  body: '{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}',
};

describe("GitHub's limits in the upstream queue", () => {
  describe("when GitHub answers with a secondary limit and retry-after: 1", () => {
    it("pauses ALL traffic once, sends nothing during the pause, then the job succeeds", async () => {
      fake.route("GET", "/a", [SECONDARY, { body: '{"ok":true}' }]);
      fake.route("GET", "/b", { body: "{}" });
      fake.route("POST", "/c", { status: 201, body: "{}" });
      const q = await h.queue({ concurrency: 2 });
      const first = q.submit(get("/a"));
      const pausedUntil = await pauseInForce(q);
      const others = [q.submit(get("/b")), q.submit(get("/b")), q.submit(post("/c"))];
      const r = await first;
      await Promise.all(others);

      expect(r.status).toBe(200);
      expect(r.body.toString()).toBe('{"ok":true}');
      expect(fake.count("GET", "/a")).toBe(2);
      // Nothing left between GitHub's refusal and the end of the pause it asked for.
      const refusedAt = fake.hits[0]!.at;
      expect(pausedUntil - refusedAt).toBeGreaterThanOrEqual(1_000);
      expect(fake.hits.slice(1).filter((hit) => hit.at < pausedUntil)).toEqual([]);
      const stats = await q.stats();
      expect(stats.pausesStarted).toBe(1);
      expect(stats.pausesStartedAllBrokers).toBe(1);
    });

    it("pauses a second broker's workers too", async () => {
      fake.route("GET", "/a", [SECONDARY, { body: "{}" }]);
      fake.route("GET", "/b", { body: "{}" });
      const a = await h.queue({ concurrency: 2 });
      const b = await h.queue({ concurrency: 2 });
      const first = a.submit(get("/a"));
      const pausedUntil = await pauseInForce(a);
      await Promise.all([b.submit(get("/b")), b.submit(get("/b")), first]);
      expect(fake.hits.slice(1).filter((hit) => hit.at < pausedUntil)).toEqual([]);
      expect(fake.count("GET", "/b")).toBe(2);
    });

    it("sends a refused write again after the pause: GitHub did not perform it", async () => {
      fake.route("POST", "/repos/a/b/issues", [SECONDARY, { status: 201, body: '{"number":7}' }]);
      const q = await h.queue();
      const r = await q.submit(post("/repos/a/b/issues", { contentCreation: true }));
      expect(r.status).toBe(201);
      expect(fake.count("POST", "/repos/a/b/issues")).toBe(2);
      expect(fake.hits[1]!.at - fake.hits[0]!.at).toBeGreaterThanOrEqual(950);
    });

    it("answers with GitHub's own refusal when the pause outlasts the caller's deadline", async () => {
      fake.route("GET", "/a", { ...SECONDARY, headers: { ...SECONDARY.headers, "retry-after": "30" } });
      const q = await h.queue();
      const r = await q.submit(get("/a", { deadlineAt: Date.now() + 2_000 }));
      expect(r.status).toBe(403);
      expect(r.body.toString()).toContain("secondary rate limit");
      expect(fake.count("GET", "/a")).toBe(1);
    });
  });

  describe("when a primary bucket is spent", () => {
    it("holds only that resource until its reset; other resources keep flowing", async () => {
      const reset = Math.ceil(Date.now() / 1000) + 1;
      const spent = {
        status: 403,
        headers: {
          "x-ratelimit-remaining": "0",
          "x-ratelimit-reset": String(reset),
          "x-ratelimit-resource": "core",
        },
        body: '{"message":"API rate limit exceeded for user ID 1."}',
      };
      fake.route("GET", "/core", [spent, { body: '{"ok":1}' }]);
      fake.route("POST", "/graphql", { body: '{"data":{}}' });
      const q = await h.queue();
      const core = q.submit(get("/core"));
      await sleep(100);
      const graphql = await q.submit(
        get("/graphql", { method: "POST", kind: "graphql", resource: "graphql", body: Buffer.from("{}") }),
      );
      expect(graphql.status).toBe(200);
      const r = await core;
      expect(r.status).toBe(200);
      expect(fake.count("GET", "/core")).toBe(2);
      expect(fake.hits.filter((x) => x.path === "/core")[1]!.at).toBeGreaterThanOrEqual(reset * 1000);
    });

    it("gives GitHub's refusal to a caller whose deadline comes before the reset", async () => {
      const reset = Math.ceil(Date.now() / 1000) + 60;
      fake.route("GET", "/core", {
        status: 403,
        headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset) },
        body: '{"message":"API rate limit exceeded"}',
      });
      const q = await h.queue();
      const r = await q.submit(get("/core", { deadlineAt: Date.now() + 3_000 }));
      expect(r.status).toBe(403);
      // The next request for the spent resource is not even sent.
      const err = await q.submit(get("/core", { deadlineAt: Date.now() + 3_000 })).catch((e: unknown) => e);
      expect(isAoError(err, UpstreamErrors.AO_ERR_UPSTREAM_RATE_LIMITED)).toBe(true);
      expect((err as { data: { reset: number } }).data.reset).toBeGreaterThanOrEqual(reset);
      expect(fake.count("GET", "/core")).toBe(1);
    });
  });

  describe("pacing under the secondary limits", () => {
    it("spaces mutations by the configured gap, across brokers", async () => {
      fake.route("POST", "/w", { status: 201, body: "{}" });
      const a = await h.queue({ mutationSpacingMs: 400 });
      const b = await h.queue({ mutationSpacingMs: 400 });
      await Promise.all([a, b, a, b].map((q) => q.submit(post("/w"))));
      const times = fake.hits.map((x) => x.at).sort((x, y) => x - y);
      expect(times).toHaveLength(4);
      // Granted ≥ 400 ms apart right before sending; arrival adds scheduling jitter on a busy machine
      // (a late send shortens the next gap: 285 ms was seen under load). Unspaced, the four would
      // arrive within a few ms: the span holds the three gaps, each gap at least half of one.
      expect(times[3]! - times[0]!).toBeGreaterThanOrEqual(3 * 400 - 60);
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(200);
    });

    it("holds GraphQL queries over the points-per-minute limit instead of sending them", async () => {
      fake.route("POST", "/graphql", { body: '{"data":{}}' });
      const q = await h.queue({ graphqlPointsPerMinute: 2 });
      const gql = () =>
        get("/graphql", {
          method: "POST",
          kind: "graphql",
          resource: "graphql",
          body: Buffer.from("{}"),
          deadlineAt: Date.now() + 1_500,
        });
      const results = await Promise.allSettled([q.submit(gql()), q.submit(gql()), q.submit(gql())]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(2);
      const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
      // Paced past its deadline: told at once how long to wait, in GitHub's secondary-limit terms.
      expect(isAoError(refused.reason, UpstreamErrors.AO_ERR_UPSTREAM_PACED)).toBe(true);
      expect(refused.reason).toMatchObject({
        httpStatus: 429,
        data: { limit: "endpoint-points-per-minute", endpoint: "graphql" },
      });
      expect(refused.reason.data.retryAfterSeconds).toBeGreaterThan(50);
      expect(fake.count("POST", "/graphql")).toBe(2);
    });

    it("makes a content-creating write wait its turn within the minute, and shows it waiting", async () => {
      fake.route("POST", "/repos/a/b/issues/1/comments", { status: 201, body: "{}" });
      const q = await h.queue({
        contentCreationPerMinute: 2,
        mutationSpacingMs: 10,
        secondaryMinuteMs: 3_000,
      });
      const comment = (session: string) =>
        q.submit(post("/repos/a/b/issues/1/comments", { contentCreation: true, sessionId: session }));
      const started = Date.now();
      const all = Promise.all([comment("s1"), comment("s2"), comment("s3")]);
      let seen: Awaited<ReturnType<UpstreamQueue["secondaryView"]>>["waiting"] = [];
      for (let i = 0; i < 100 && seen.length === 0; i++) {
        await sleep(20);
        seen = (await q.secondaryView()).waiting;
      }
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({
        limit: "content-creation-per-minute",
        endpoint: "/repos/:owner/:repo/issues/:n/comments",
      });
      const view = await q.secondaryView();
      expect(view.contentCreation.minute).toEqual({ used: 2, limit: 2, githubLimit: 80 });
      expect(view.contentCreation.hour.used).toBe(2);
      expect(view.endpoints).toEqual([
        { endpoint: "/repos/:owner/:repo/issues/:n/comments", points: 10, limit: 810, githubLimit: 900 },
      ]);
      const results = await all;
      expect(results.map((r) => r.status)).toEqual([201, 201, 201]);
      expect(fake.count("POST", "/repos/a/b/issues/1/comments")).toBe(3);
      // The third went only when the first left the (3 s) minute.
      const times = fake.hits.map((x) => x.at).sort((x, y) => x - y);
      expect(times[2]! - times[0]!).toBeGreaterThanOrEqual(2_950);
      expect(Date.now() - started).toBeLessThan(8_000);
      expect((await q.secondaryView()).waiting).toEqual([]);
    });

    it("refuses at once, sending nothing, a content-creating write the hour will not let go before its deadline", async () => {
      fake.route("POST", "/repos/a/b/issues", { status: 201, body: "{}" });
      const q = await h.queue({ contentCreationPerHour: 1, mutationSpacingMs: 10 });
      expect((await q.submit(post("/repos/a/b/issues", { contentCreation: true }))).status).toBe(201);
      const started = Date.now();
      const err = await q
        .submit(post("/repos/a/b/issues", { contentCreation: true, deadlineAt: Date.now() + 60_000 }))
        .catch((e: unknown) => e);
      expect(Date.now() - started).toBeLessThan(500);
      expect(isAoError(err, UpstreamErrors.AO_ERR_UPSTREAM_PACED)).toBe(true);
      expect(err).toMatchObject({
        httpStatus: 429,
        data: { limit: "content-creation-per-hour", predicted: true },
      });
      expect((err as { data: { retryAfterSeconds: number } }).data.retryAfterSeconds).toBeGreaterThan(60);
      expect(fake.count("POST", "/repos/a/b/issues")).toBe(1);
    });
  });
});

describe("takePace-7.lua", () => {
  const T = 1_700_000_040_000;
  let client: ReturnType<typeof createRedisClient>;
  let scripts: LuaScripts;
  let keys: string[];
  beforeEach(() => {
    client = createRedisClient(redis.url);
    scripts = new LuaScripts(client, ["takePace-7.lua", "holdUntil-1.lua"], "AO_ERR_UPSTREAM_SCRIPT_FAILED");
    const p = `{${redis.prefix()}:up}`;
    keys = [
      `${p}:pause`,
      `${p}:block:core`,
      `${p}:points:x`,
      `${p}:cc:m`,
      `${p}:cc:h`,
      `${p}:endpoints`,
      `${p}:waits`,
    ];
  });
  afterEach(() => client.disconnect());

  const take = async (
    now: number,
    points: number,
    creates: boolean | number = false,
    extra: { minuteMs?: number; job?: string; session?: string; dry?: boolean } = {},
  ) =>
    (await scripts.run("takePace", keys, [
      now,
      points,
      10,
      typeof creates === "number" ? creates : creates ? 1 : 0,
      3,
      5,
      extra.minuteMs ?? 60_000,
      "/x",
      extra.job ?? "",
      extra.session ?? "",
      extra.dry ? 1 : 0,
    ])) as string[];

  it("admits points up to the per-minute limit, then names when the oldest second leaves the window", async () => {
    expect((await take(T + 900, 4))[0]).toBe("0");
    expect((await take(T + 10_000, 5))[0]).toBe("0");
    expect(await take(T + 20_000, 5)).toEqual(["3", String(T + 61_000), String(T + 20_000)]);
    // 59.1 s after the first: still inside one minute, so still counted (its whole second is).
    expect((await take(T + 60_000, 5))[0]).toBe("3");
    expect((await take(T + 61_000, 5))[0]).toBe("0");
  });

  it("records nothing when it refuses", async () => {
    await take(T, 10);
    await take(T + 1_000, 1);
    expect((await take(T + 61_000, 10))[0]).toBe("0");
  });

  it("limits content creation per minute (code 4) and per hour (code 5)", async () => {
    for (let i = 0; i < 3; i++) expect((await take(T + i, 0, true))[0]).toBe("0");
    expect((await take(T + 5_000, 0, true))[0]).toBe("4");
    expect((await take(T + 61_000, 0, true))[0]).toBe("0");
    expect((await take(T + 62_000, 0, true))[0]).toBe("0");
    const hourly = await take(T + 130_000, 0, true);
    expect(hourly[0]).toBe("5");
    expect(Number(hourly[1])).toBe(T - (T % 60_000) + 3_660_000);
  });

  it("counts a merged mutation as each content-creating member (decision 0023)", async () => {
    // 3 a minute: two members fit, then two more do not (2 + 2 > 3), nor would one of 1 + 3.
    expect((await take(T, 0, 2))[0]).toBe("0");
    expect((await take(T + 1_000, 0, 2))[0]).toBe("4");
    expect((await take(T + 1_000, 0, 1))[0]).toBe("0");
    expect((await take(T + 2_000, 0, 1))[0]).toBe("4");
    // The hour (5) counts members too: 3 recorded, then 2 more fit a minute later, then none.
    expect((await take(T + 61_000, 0, 2))[0]).toBe("0");
    expect((await take(T + 122_000, 0, 1))[0]).toBe("5");
    await expect(take(T, 0, -1)).rejects.toThrow(/invalid argument/);
  });

  it("compresses both windows with the minute: 600 ms minutes make a 36 s hour", async () => {
    const m = { minuteMs: 600 };
    for (let i = 0; i < 3; i++) expect((await take(T + i, 0, true, m))[0]).toBe("0");
    expect((await take(T + 100, 0, true, m))[0]).toBe("4");
    expect((await take(T + 610, 0, true, m))[0]).toBe("0");
    expect((await take(T + 1_220, 0, true, m))[0]).toBe("0");
    const hourly = await take(T + 2_100, 0, true, m);
    expect(hourly[0]).toBe("5");
    expect(Number(hourly[1])).toBe(Math.floor(T / 600) * 600 + 36_600);
    await expect(take(T, 1, false, { minuteMs: 1_000 + 1 })).rejects.toThrow(/invalid argument/);
  });

  it("records what a refused job waits for and forgets it when the job goes", async () => {
    await take(T, 10);
    await take(T + 1_000, 1, false, { job: "j1", session: "s1" });
    expect(await client.hgetall(keys[6]!)).toEqual({ j1: `3|s1|/x|${T + 61_000}|${T + 1_000}` });
    expect((await take(T + 61_000, 1, false, { job: "j1", session: "s1" }))[0]).toBe("0");
    expect(await client.hgetall(keys[6]!)).toEqual({});
    expect(await client.zscore(keys[5]!, "/x")).toBe(String(T + 61_000));
  });

  it("answers a dry run without recording anything", async () => {
    for (let i = 0; i < 3; i++) await take(T, 0, true);
    expect(await take(T + 1, 0, true, { dry: true, job: "j2" })).toEqual([
      "4",
      String(T + 61_000),
      String(T + 1),
    ]);
    expect(await client.hgetall(keys[6]!)).toEqual({});
    expect((await take(T + 61_000, 0, true, { dry: true }))[0]).toBe("0");
    // The dry go recorded nothing: a real one still finds the bucket empty.
    expect((await take(T + 61_000, 0, true))[0]).toBe("0");
    expect(await client.hget(keys[3]!, String(Math.floor((T + 61_000) / 1000)))).toBe("1");
  });

  it("reports a pause or a blocked resource first", async () => {
    await scripts.run("holdUntil", [keys[1]!], [T, T + 5_000]);
    expect(await take(T, 1)).toEqual(["2", String(T + 5_000), String(T)]);
    await scripts.run("holdUntil", [keys[0]!], [T, T + 9_000]);
    expect(await take(T, 1)).toEqual(["1", String(T + 9_000), String(T)]);
  });

  it("extends a hold but never shortens it, and says when it started a fresh one", async () => {
    const hold = (until: number, now = T) =>
      scripts.run("holdUntil", [keys[0]!], [now, until]) as Promise<string[]>;
    expect((await hold(T + 1_000))[0]).toBe("2");
    expect((await hold(T + 3_000))[0]).toBe("1");
    expect(await hold(T + 2_000)).toEqual(["0", String(T + 3_000), String(T)]);
    expect((await hold(T + 9_000, T + 5_000))[0]).toBe("2");
  });
});
