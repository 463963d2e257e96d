/**
 * The upstream queue when Redis loses what it held: jobs waiting in the queue vanish with a Redis
 * that restarts without its data. Their submitters must not wait until their deadlines: within a
 * sweep interval a lost read is queued again and answered, and a lost write is reported as
 * outcome unknown (never sent on a guess). A reply whose message was missed but whose key exists
 * is delivered by the same sweep. Jobs wait in the queue because the submitting broker runs no
 * workers; a worker broker starts only after the loss.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddedRedis, startEmbeddedRedis } from "../../../broker/index.js";
import { UpstreamClient, UpstreamQueue, type UpstreamQueueOptions } from "../../../broker/upstream/index.js";
import { isAoError } from "../../../common/index.js";
import { FakeUpstream } from "../broker/upstream/fake-upstream.js";
import { FAST_POLICY, get, post, sleep } from "../broker/upstream/queue-harness.js";

let dir: string;
let server: EmbeddedRedis;
let fake: FakeUpstream;
const queues: UpstreamQueue[] = [];
const clients: UpstreamClient[] = [];

const start = () => startEmbeddedRedis({ dir, detached: false, persist: false });

async function queue(prefix: string, options: Partial<UpstreamQueueOptions> = {}): Promise<UpstreamQueue> {
  const workers = options.workers ?? true;
  const client = new UpstreamClient({
    baseUrl: fake.url,
    token: "ghp_lossTest000000000000",
    timeoutMs: 2_000,
  });
  clients.push(client);
  const q = await UpstreamQueue.create({
    redis: server.url,
    prefix,
    requestTimeoutMs: 2_000,
    ...(workers ? { client } : {}),
    workers,
    policy: { ...FAST_POLICY, replySweepMs: 300 },
  });
  queues.push(q);
  return q;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "aob-loss-"));
  fake = await FakeUpstream.start();
  fake.route("GET", "/repos/acme/widgets/pulls/1", { body: { number: 1 } });
  fake.route("POST", "/repos/acme/widgets/issues/1/comments", { status: 201, body: { id: 1 } });
});

afterEach(async () => {
  await Promise.allSettled(queues.splice(0).map((q) => q.close()));
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
  await server?.stop();
});

afterAll(async () => {
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("UpstreamQueue when Redis loses its data", () => {
  it("runs a lost read again and reports a lost write as outcome unknown, long before their deadlines", async () => {
    server = await start();
    const prefix = `loss${randomUUID().slice(0, 6)}`;
    const submitter = await queue(prefix, { workers: false });
    const deadlineAt = Date.now() + 60_000;
    const read = submitter.submit(get("/repos/acme/widgets/pulls/1", { deadlineAt }));
    const write = submitter.submit(post("/repos/acme/widgets/issues/1/comments", { deadlineAt }));
    write.catch(() => undefined);
    // Both jobs are in Redis, waiting for a worker.
    const queued = async () => {
      const { lanes } = await submitter.stats();
      return (lanes.reads.prioritized ?? 0) + (lanes.writes.prioritized ?? 0);
    };
    while ((await queued()) !== 2) await sleep(20);

    await server.stop();
    server = await start();
    const started = Date.now();
    await queue(prefix);

    const answer = await read;
    expect(answer.status).toBe(200);
    const error = await write.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isAoError(error) && error.code).toBe("AO_ERR_WRITE_OUTCOME_UNKNOWN");
    expect(Date.now() - started).toBeLessThan(10_000);
    // The write was never sent: the queue lost it before any worker saw it, and nothing repeated it.
    expect(fake.count("POST", "/repos/acme/widgets/issues/1/comments")).toBe(0);
    expect(fake.count("GET", "/repos/acme/widgets/pulls/1")).toBe(1);
    expect((await submitter.stats()).lostJobs).toBe(2);
  }, 30_000);

  it("delivers a reply whose message was missed from its key", async () => {
    server = await start();
    const prefix = `miss${randomUUID().slice(0, 6)}`;
    const submitter = await queue(prefix, { workers: false });
    const pending = submitter.submit(get("/repos/acme/widgets/pulls/1", { deadlineAt: Date.now() + 60_000 }));
    const { Redis } = await import("ioredis");
    const raw = new Redis({ path: server.socketPath });
    try {
      let ids: string[] = [];
      while (ids.length === 0) {
        ids = (await raw.keys(`{${prefix}:up}:reads:*`))
          .map((k) => k.split(":").pop() ?? "")
          .filter((id) => /^[0-9a-f-]{36}$/.test(id));
        await sleep(20);
      }
      const id = ids[0] as string;
      // What a worker leaves when its PUBLISH reached nobody: the reply under its key, nothing on the channel.
      const reply = {
        id,
        ok: true,
        status: 200,
        headers: {},
        body: Buffer.from("{}").toString("base64"),
        attempts: 1,
        upstreamMs: 1,
        worker: "elsewhere",
      };
      await raw.set(`{${prefix}:up}:result:${id}`, JSON.stringify(reply), "PX", 60_000);
      const started = Date.now();
      const answer = await pending;
      expect(answer.worker).toBe("elsewhere");
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(await raw.exists(`{${prefix}:up}:result:${id}`)).toBe(0);
    } finally {
      raw.disconnect();
    }
  }, 30_000);
});
