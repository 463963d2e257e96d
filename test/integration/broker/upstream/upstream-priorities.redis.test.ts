import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PriorityClass } from "../../../../broker/pipeline/types.js";
import { startTestRedis, type TestRedis } from "../../../support/redis.js";
import { FakeUpstream } from "./fake-upstream.js";
import { get, QueueHarness, sleep } from "./queue-harness.js";

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

/** One read slot: concurrency 2 = 1 read + 1 write. */
const ONE_READ_AT_A_TIME = { concurrency: 2 };

describe("priorities", () => {
  it("runs a backlog highest class first: lifecycle, interactive, write-class reads, background", async () => {
    fake.route("GET", "/blocker", { body: "{}", delayMs: 300 });
    for (const p of ["lifecycle", "interactive", "write", "background"])
      fake.route("GET", `/${p}`, { body: "{}" });
    const q = await h.queue({ ...ONE_READ_AT_A_TIME, agingMs: {} });
    const blocker = q.submit(get("/blocker", { priority: "lifecycle" }));
    while (fake.count("GET", "/blocker") === 0) await sleep(10);
    const order: PriorityClass[] = [
      "background",
      "write",
      "interactive",
      "lifecycle",
      "background",
      "lifecycle",
    ];
    await Promise.all([blocker, ...order.map((priority) => q.submit(get(`/${priority}`, { priority })))]);
    const ran = fake.hits.slice(1).map((x) => x.path.slice(1));
    expect(ran).toEqual(["lifecycle", "lifecycle", "interactive", "write", "background", "background"]);
  });

  it("promotes a background job that waited past its aging bound ahead of queued lifecycle work", async () => {
    fake.route("GET", "/blocker", { body: "{}", delayMs: 200 });
    fake.route("GET", "/lifecycle", { body: "{}", delayMs: 60 });
    fake.route("GET", "/background", { body: "{}" });
    const q = await h.queue({ ...ONE_READ_AT_A_TIME, agingMs: { background: 1_000 }, agingTickMs: 100 });
    const blocker = q.submit(get("/blocker", { priority: "lifecycle" }));
    while (fake.count("GET", "/blocker") === 0) await sleep(10);
    const submittedAt = Date.now();
    const background = q.submit(get("/background", { priority: "background" }));
    // 2.4 s of lifecycle work queued ahead of it; without aging it would run last.
    const lifecycle = Array.from({ length: 40 }, () =>
      q.submit(get("/lifecycle", { priority: "lifecycle" })),
    );
    await Promise.all([blocker, background, ...lifecycle]);
    const ran = fake.hits.slice(1).map((x) => x.path);
    const position = ran.indexOf("/background");
    const backgroundAt = fake.hits.find((x) => x.path === "/background")!.at;
    // Not before its bound (lifecycle work ran first) …
    expect(backgroundAt - submittedAt).toBeGreaterThanOrEqual(950);
    expect(position).toBeGreaterThanOrEqual(3);
    // … but long before the backlog drained: promoted to the front, one job after its bound.
    expect(position).toBeLessThan(30);
    expect(ran.slice(position + 1).filter((p) => p === "/lifecycle").length).toBeGreaterThanOrEqual(10);
  });

  it("runs jobs that aged while the lane was blocked in the order they were submitted, before lifecycle work", async () => {
    fake.route("GET", "/blocker", { body: "{}", delayMs: 1_500 });
    fake.route("GET", "/lifecycle", { body: "{}" });
    for (let i = 0; i < 5; i++) fake.route("GET", `/background-${i}`, { body: "{}" });
    const q = await h.queue({ ...ONE_READ_AT_A_TIME, agingMs: { background: 150 }, agingTickMs: 50 });
    const blocker = q.submit(get("/blocker", { priority: "lifecycle" }));
    while (fake.count("GET", "/blocker") === 0) await sleep(10);
    // Submitted 100 ms apart, so each ages in a tick of its own, all well before the blocker ends.
    const jobs: Promise<unknown>[] = [];
    for (let i = 0; i < 5; i++) {
      jobs.push(q.submit(get(`/background-${i}`, { priority: "background" })));
      jobs.push(q.submit(get("/lifecycle", { priority: "lifecycle" })));
      await sleep(100);
    }
    await Promise.all([blocker, ...jobs]);
    const ran = fake.hits.slice(1).map((x) => x.path);
    expect(ran).toEqual([
      ...Array.from({ length: 5 }, (_, i) => `/background-${i}`),
      ...Array.from({ length: 5 }, () => "/lifecycle"),
    ]);
  });
});
