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
    const blocker = q.submit(get("/blocker"));
    await sleep(50);
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

  it("still runs a background job within its aging bound under a constant stream of lifecycle work", async () => {
    fake.route("GET", "/lifecycle", { body: "{}", delayMs: 60 });
    fake.route("GET", "/background", { body: "{}" });
    const q = await h.queue({ ...ONE_READ_AT_A_TIME, agingMs: { background: 600 }, agingTickMs: 100 });
    let streaming = true;
    // Keep about eight lifecycle jobs queued at all times, for three seconds.
    const stream = (async () => {
      const inFlight = new Set<Promise<unknown>>();
      const stopAt = Date.now() + 3_000;
      while (Date.now() < stopAt) {
        while (inFlight.size < 8) {
          const p: Promise<unknown> = q
            .submit(get("/lifecycle", { priority: "lifecycle" }))
            .finally(() => inFlight.delete(p));
          inFlight.add(p);
        }
        await sleep(20);
      }
      streaming = false;
      await Promise.all(inFlight);
    })();
    await sleep(200);
    const submittedAt = Date.now();
    const background = await q.submit(get("/background", { priority: "background" }));
    const ranAt = fake.hits.find((x) => x.path === "/background")!.at;
    expect(background.status).toBe(200);
    expect(streaming).toBe(true);
    // aging bound + one aging tick + one lifecycle job ahead of it, with scheduling slack
    expect(ranAt - submittedAt).toBeLessThan(600 + 100 + 60 + 400);
    expect(ranAt - submittedAt).toBeGreaterThanOrEqual(550);
    await stream;
    expect(fake.count("GET", "/lifecycle")).toBeGreaterThan(30);
  });
});
