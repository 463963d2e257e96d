import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createRedisClient } from "../../../../broker/redis/index.js";
import { UpstreamErrors } from "../../../../broker/upstream/index.js";
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

const RL = {
  "x-ratelimit-limit": "5000",
  "x-ratelimit-remaining": "4321",
  "x-ratelimit-used": "679",
  "x-ratelimit-reset": "1900000000",
  "x-ratelimit-resource": "core",
};

describe("UpstreamQueue", () => {
  describe("when a request is answered", () => {
    it("returns GitHub's status, headers and bytes with the rate-limit report and timings", async () => {
      fake.route("GET", "/repos/acme/widgets", { body: '{"id":1}', headers: { ...RL, etag: '"e1"' } });
      const q = await h.queue();
      const r = await q.submit(get("/repos/acme/widgets", { requestId: "req-1" }));
      expect(r).toMatchObject({ requestId: "req-1", status: 200, attempts: 1, worker: q.instanceId });
      expect(r.body.toString()).toBe('{"id":1}');
      expect(r.headers.etag).toBe('"e1"');
      expect(r.rateLimit).toEqual({
        resource: "core",
        limit: 5000,
        remaining: 4321,
        used: 679,
        reset: 1900000000,
      });
      expect(r.queueWaitMs).toBeGreaterThanOrEqual(0);
      expect(r.upstreamMs).toBeGreaterThanOrEqual(0);
      expect(fake.hits[0]!.headers.authorization).toBe("token ghp_harnesstoken0000000000");
    });

    it("reports the GraphQL cost from the injected rateLimit object", async () => {
      fake.route("POST", "/graphql", {
        body: {
          data: {
            viewer: { login: "x" },
            aobRateLimit: { cost: 3, remaining: 4990, resetAt: "2030-01-01T00:00:00Z" },
          },
        },
      });
      const q = await h.queue();
      const r = await q.submit(
        get("/graphql", {
          method: "POST",
          kind: "graphql",
          resource: "graphql",
          body: Buffer.from('{"query":"{viewer{login}}"}'),
        }),
      );
      expect(r.graphqlCost).toBe(3);
      expect(r.graphqlRateLimit).toMatchObject({
        remaining: 4990,
        resetAt: Date.parse("2030-01-01T00:00:00Z"),
      });
      expect(fake.count("POST", "/graphql")).toBe(1);
    });

    it("leaves no bodies in Redis once the answer is delivered", async () => {
      fake.route("GET", "/big", { body: "x".repeat(50_000) });
      const q = await h.queue();
      const results = await Promise.all(Array.from({ length: 5 }, () => q.submit(get("/big"))));
      expect(results.every((r) => r.body.length === 50_000)).toBe(true);
      const client = createRedisClient(redis.url);
      try {
        // Each submitter deletes its reply key as it takes the answer.
        let left = await client.keys(`{${h.prefix}:up}:result:*`);
        for (let i = 0; i < 100 && left.length > 0; i++) {
          await sleep(20);
          left = await client.keys(`{${h.prefix}:up}:result:*`);
        }
        expect(left).toEqual([]);
        const jobKeys = (await client.keys(`{${h.prefix}:up}:reads:*`)).filter((k) =>
          /:reads:[0-9a-f-]{36}$/.test(k),
        );
        expect(jobKeys).toHaveLength(5);
        for (const key of jobKeys) {
          const returnvalue = await client.hget(key, "returnvalue");
          expect((returnvalue ?? "").length).toBeLessThan(100);
        }
      } finally {
        client.disconnect();
      }
    });
  });

  describe("when the submitting broker runs no workers", () => {
    it("gets the result from the broker whose worker ran the job", async () => {
      fake.route("GET", "/x", { body: "{}" });
      const submitter = await h.queue({}, { workers: false });
      const worker = await h.queue();
      const r = await submitter.submit(get("/x"));
      expect(r.worker).toBe(worker.instanceId);
      expect(r.worker).not.toBe(submitter.instanceId);
    });
  });

  describe("when two brokers share one Redis", () => {
    it("both run jobs, and together never exceed the global concurrency cap", async () => {
      fake.route("GET", "/slow", { body: "{}", delayMs: 120 });
      const a = await h.queue({ concurrency: 4 });
      const b = await h.queue({ concurrency: 4 });
      const jobs = Array.from({ length: 24 }, (_, i) => (i % 2 ? a : b).submit(get("/slow")));
      const results = await Promise.all(jobs);
      expect(results).toHaveLength(24);
      expect(fake.count("GET", "/slow")).toBe(24);
      // 4 = 3 read slots + 1 write slot; only reads here.
      expect(fake.maxInFlight).toBeLessThanOrEqual(3);
      expect(fake.maxInFlight).toBeGreaterThanOrEqual(2);
      const workers = new Set(results.map((r) => r.worker));
      expect(workers).toEqual(new Set([a.instanceId, b.instanceId]));
    });
  });

  describe("deadlines", () => {
    it("removes a job still queued at its deadline and never sends it", async () => {
      fake.route("GET", "/blocker", { body: "{}", delayMs: 1_000 });
      fake.route("GET", "/late", { body: "{}" });
      const q = await h.queue({ concurrency: 2 });
      let blockerDoneAt = 0;
      const blocker = q.submit(get("/blocker")).then(() => {
        blockerDoneAt = Date.now();
      });
      while (fake.count("GET", "/blocker") === 0) await sleep(10);
      const err = await q.submit(get("/late", { deadlineAt: Date.now() + 200 })).catch((e: unknown) => e);
      const refusedAt = Date.now();
      expect(isAoError(err, UpstreamErrors.AO_ERR_UPSTREAM_DEADLINE)).toBe(true);
      await blocker;
      // The caller heard at its deadline, not when the slot came free.
      expect(refusedAt).toBeLessThan(blockerDoneAt);
      await sleep(100);
      expect(fake.count("GET", "/late")).toBe(0);
    });

    it("refuses a job whose deadline already passed without sending it", async () => {
      const q = await h.queue();
      const err = await q.submit(get("/x", { deadlineAt: Date.now() - 1 })).catch((e: unknown) => e);
      expect(isAoError(err, UpstreamErrors.AO_ERR_UPSTREAM_DEADLINE)).toBe(true);
      expect(fake.hits).toHaveLength(0);
    });
  });

  describe("bad input", () => {
    it.each([
      { name: "a lower-case method", job: get("/x", { method: "get" }) },
      { name: "a path without a slash", job: get("x") },
      { name: "an unknown kind", job: get("/x", { kind: "soap" as never }) },
      { name: "an unknown priority", job: get("/x", { priority: "urgent" as never }) },
      { name: "a deadline that is not a number", job: get("/x", { deadlineAt: Number.NaN }) },
    ])("refuses $name with AO_ERR_UPSTREAM_BAD_REQUEST", async ({ job }) => {
      const q = await h.queue();
      const err = await q.submit(job).catch((e: unknown) => e);
      expect(isAoError(err, UpstreamErrors.AO_ERR_UPSTREAM_BAD_REQUEST)).toBe(true);
      expect(fake.hits).toHaveLength(0);
    });

    it("never stores the caller's Authorization in Redis", async () => {
      fake.route("POST", "/slowpost", { body: "{}", delayMs: 300 });
      const q = await h.queue();
      const pending = q.submit(post("/slowpost", { headers: { authorization: "token session-secret-123" } }));
      while (fake.count("POST", "/slowpost") === 0) await sleep(10);
      const client = createRedisClient(redis.url);
      try {
        const keys = await client.keys(`{${h.prefix}:up}:writes:*`);
        let jobs = 0;
        for (const key of keys) {
          if ((await client.type(key)) !== "hash") continue;
          const fields = JSON.stringify(await client.hgetall(key));
          if (fields.includes("/slowpost")) jobs++;
          expect(fields).not.toContain("session-secret-123");
        }
        expect(jobs).toBe(1);
      } finally {
        client.disconnect();
      }
      await pending;
      expect(fake.hits[0]!.headers.authorization).toBe("token ghp_harnesstoken0000000000");
    });
  });

  describe("close", () => {
    it("finishes what is running, then refuses new work", async () => {
      fake.route("GET", "/slow", { body: "{}", delayMs: 300 });
      const q = await h.queue();
      const running = q.submit(get("/slow"));
      await sleep(80);
      await q.close();
      expect((await running).status).toBe(200);
      const err = await q.submit(get("/slow")).catch((e: unknown) => e);
      expect(isAoError(err, UpstreamErrors.AO_ERR_UPSTREAM_CLOSED)).toBe(true);
    });
  });
});
