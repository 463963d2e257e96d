import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
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

const gaps = (path: string) => {
  const times = fake.hits.filter((x) => x.path === path).map((x) => x.at);
  return times.slice(1).map((t, i) => t - times[i]!);
};

describe("retries", () => {
  describe("idempotent reads", () => {
    it("retries a 5xx burst with growing, jittered backoff and returns the success", async () => {
      fake.route("GET", "/flaky", [{ status: 502 }, { status: 503 }, { body: '{"ok":1}' }]);
      const q = await h.queue({ backoffBaseMs: 100, backoffMaxMs: 1_000 });
      const r = await q.submit(get("/flaky"));
      expect(r).toMatchObject({ status: 200, attempts: 3 });
      expect(fake.count("GET", "/flaky")).toBe(3);
      const [first, second] = gaps("/flaky");
      expect(first).toBeGreaterThanOrEqual(50); // attempt 1: 50–100 ms
      expect(second).toBeGreaterThanOrEqual(100); // attempt 2: 100–200 ms
      expect((await q.stats()).retries).toBe(2);
    });

    it("stops after the configured attempts and gives the caller GitHub's last answer", async () => {
      fake.route("GET", "/down", { status: 500, body: '{"message":"Server Error"}' });
      const q = await h.queue({ readAttempts: 3 });
      const r = await q.submit(get("/down"));
      expect(r.status).toBe(500);
      expect(r.body.toString()).toBe('{"message":"Server Error"}');
      expect(r.attempts).toBe(3);
      await sleep(300);
      expect(fake.count("GET", "/down")).toBe(3);
    });

    it("retries a connection reset", async () => {
      fake.route("GET", "/reset", [{ reset: true }, { body: "{}" }]);
      const q = await h.queue();
      expect((await q.submit(get("/reset"))).status).toBe(200);
      expect(fake.count("GET", "/reset")).toBe(2);
    });

    it("retries a timeout, and gives up with AO_ERR_UPSTREAM_TIMEOUT after the last attempt", async () => {
      fake.route("GET", "/hang", { hang: true });
      const q = await h.queue({ readAttempts: 2 }, { timeoutMs: 200 });
      const err = await q.submit(get("/hang")).catch((e: unknown) => e);
      expect(isAoError(err, UpstreamErrors.AO_ERR_UPSTREAM_TIMEOUT)).toBe(true);
      expect(fake.count("GET", "/hang")).toBe(2);
    });

    it("does not retry past the caller's deadline", async () => {
      fake.route("GET", "/down", { status: 502 });
      const q = await h.queue({ readAttempts: 10, backoffBaseMs: 400, backoffMaxMs: 400 });
      const deadlineAt = Date.now() + 700;
      const outcome = await q.submit(get("/down", { deadlineAt })).catch((e: unknown) => e);
      // GitHub's last answer, or the deadline error if the last retry came due just too late.
      if (isAoError(outcome)) expect(outcome.code).toBe(UpstreamErrors.AO_ERR_UPSTREAM_DEADLINE);
      else expect((outcome as { status: number }).status).toBe(502);
      await sleep(500);
      expect(fake.count("GET", "/down")).toBeLessThanOrEqual(3);
      // No retry STARTS after the deadline; its bytes may land a little later on a busy machine.
      expect(fake.hits.filter((x) => x.at > deadlineAt + 250)).toEqual([]);
    });
  });

  describe("writes", () => {
    it("reports a POST that timed out as outcome unknown and never sends it again", async () => {
      fake.route("POST", "/repos/a/b/pulls", { hang: true });
      const q = await h.queue({ writeAttempts: 3 }, { timeoutMs: 250 });
      const err = await q.submit(post("/repos/a/b/pulls")).catch((e: unknown) => e);
      expect(isAoError(err, UpstreamErrors.AO_ERR_WRITE_OUTCOME_UNKNOWN)).toBe(true);
      expect((err as Error).message).not.toContain("ghp_");
      await sleep(600);
      expect(fake.count("POST", "/repos/a/b/pulls")).toBe(1);
    });

    it("reports a POST whose connection was reset as outcome unknown, sent once", async () => {
      fake.route("POST", "/repos/a/b/issues/1/comments", { reset: true });
      const q = await h.queue();
      const err = await q.submit(post("/repos/a/b/issues/1/comments")).catch((e: unknown) => e);
      expect(isAoError(err, UpstreamErrors.AO_ERR_WRITE_OUTCOME_UNKNOWN)).toBe(true);
      await sleep(300);
      expect(fake.count("POST", "/repos/a/b/issues/1/comments")).toBe(1);
    });

    it("gives a write's 5xx to the caller as GitHub sent it, without retrying", async () => {
      fake.route("POST", "/w", { status: 502, body: "bad gateway" });
      const q = await h.queue();
      const r = await q.submit(post("/w"));
      expect(r.status).toBe(502);
      await sleep(300);
      expect(fake.count("POST", "/w")).toBe(1);
    });

    it("treats a GraphQL mutation as a write", async () => {
      fake.route("POST", "/graphql", { hang: true });
      const q = await h.queue({}, { timeoutMs: 200 });
      const err = await q
        .submit(
          get("/graphql", {
            method: "POST",
            kind: "graphql",
            resource: "graphql",
            mutation: true,
            body: Buffer.from("{}"),
          }),
        )
        .catch((e: unknown) => e);
      expect(isAoError(err, UpstreamErrors.AO_ERR_WRITE_OUTCOME_UNKNOWN)).toBe(true);
      await sleep(300);
      expect(fake.count("POST", "/graphql")).toBe(1);
    });

    it("is never sent twice when the broker running it crashes", async () => {
      fake.route("POST", "/repos/a/b/pulls", { hang: true });
      const child = spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          fileURLToPath(new URL("./crash-worker.ts", import.meta.url)),
          redis.url,
          h.prefix,
          fake.url,
        ],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      try {
        await new Promise<void>((resolve, reject) => {
          child.stdout!.on("data", (chunk: Buffer) => {
            if (chunk.toString().includes("ready")) resolve();
          });
          child.on("exit", (code) => reject(new Error(`crash worker exited early (${code})`)));
        });
        const submitter = await h.queue({}, { workers: false });
        const outcome = submitter
          .submit(post("/repos/a/b/pulls", { deadlineAt: Date.now() + 20_000 }))
          .catch((e: unknown) => e);
        for (let i = 0; i < 100 && fake.count("POST", "/repos/a/b/pulls") === 0; i++) await sleep(50);
        expect(fake.count("POST", "/repos/a/b/pulls")).toBe(1);
        child.kill("SIGKILL");
        // A surviving broker finds the dead broker's job and fails it instead of running it again.
        await h.queue({ lockDurationMs: 1_000, stalledIntervalMs: 300 });
        const err = await outcome;
        expect(isAoError(err, UpstreamErrors.AO_ERR_WRITE_OUTCOME_UNKNOWN)).toBe(true);
        await sleep(500);
        expect(fake.count("POST", "/repos/a/b/pulls")).toBe(1);
      } finally {
        child.kill("SIGKILL");
      }
    }, 20_000);
  });
});
