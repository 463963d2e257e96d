/**
 * A write job whose broker died while running it is taken over by a surviving broker (BullMQ
 * finds it stalled and runs it again). The "started" marker, set immediately before the send,
 * decides what the survivor does: absent → the write never left, and is sent exactly once;
 * present → it may have left, so the caller is told AO_ERR_WRITE_OUTCOME_UNKNOWN and nothing is
 * sent again. (A broker killed in the middle of the send: upstream-retries.redis.test.ts.)
 *
 * The dying broker is a child process (crash-worker.ts) held in its mutation spacing (startWrite-2.lua):
 * the test moves the last-mutation time ahead, so the child has taken the job but not sent it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createRedisClient } from "../../../../broker/redis/index.js";
import { UpstreamErrors } from "../../../../broker/upstream/index.js";
import { isAoError } from "../../../../common/index.js";
import { startTestRedis, type TestRedis } from "../../../support/redis.js";
import { FakeUpstream } from "./fake-upstream.js";
import { post, QueueHarness, sleep } from "./queue-harness.js";

/** How long the dying broker is held in its spacing: ample time to see it pacing and kill it. */
const HOLD_MS = 2_500;
/** Pacing for both brokers, small so the hold above is the only wait (settings, not defaults). */
const PACING = { mutationSpacingMs: 100, lockDurationMs: 1_000, stalledIntervalMs: 300 };
const PATH = "/repos/a/b/issues/1/comments";

let redis: TestRedis;
let fake: FakeUpstream;
let h: QueueHarness;
let inspect: ReturnType<typeof createRedisClient>;
let child: ChildProcess | undefined;

beforeAll(async () => {
  redis = await startTestRedis();
  inspect = createRedisClient(redis.url);
});
afterAll(async () => {
  inspect.disconnect();
  await redis.stop();
});
beforeEach(async () => {
  fake = await FakeUpstream.start();
  fake.route("POST", PATH, { status: 201, body: { id: 1 } });
  h = new QueueHarness(redis, fake);
});
afterEach(async () => {
  child?.kill("SIGKILL");
  child = undefined;
  await h.close();
  await fake.close();
});

async function startDyingBroker(): Promise<ChildProcess> {
  const worker = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      fileURLToPath(new URL("./crash-worker.ts", import.meta.url)),
      redis.url,
      h.prefix,
      fake.url,
      JSON.stringify(PACING),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    worker.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) resolve();
    });
    worker.on("exit", (code) => reject(new Error(`crash worker exited early (${code})`)));
  });
  return worker;
}

const tag = () => `{${h.prefix}:up}`;

/** Submits a write the dying broker takes and holds in its spacing; resolves with its job id. */
async function writeHeldInPacing(): Promise<{ id: string; outcome: Promise<unknown> }> {
  child = await startDyingBroker();
  await inspect.set(`${tag()}:mutation:last`, String(Date.now() + HOLD_MS));
  const submitter = await h.queue(PACING, { workers: false });
  const outcome = submitter.submit(post(PATH, { deadlineAt: Date.now() + 20_000 })).catch((e: unknown) => e);
  let id: string | undefined;
  for (let i = 0; i < 100 && !id; i++) {
    id = (await inspect.lrange(`${tag()}:writes:active`, 0, -1))[0];
    if (!id) await sleep(20);
  }
  expect(id, "the dying broker took the write").toBeDefined();
  return { id: id!, outcome };
}

async function kill(worker: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => worker.once("exit", resolve));
  worker.kill("SIGKILL");
  await exited;
}

describe("a write whose broker died while running it", () => {
  it("is sent exactly once by the survivor when its broker died before sending (while pacing)", async () => {
    const { id, outcome } = await writeHeldInPacing();
    // Pacing, not sending: nothing reached GitHub and no marker says otherwise.
    expect(fake.count("POST", PATH)).toBe(0);
    expect(await inspect.exists(`${tag()}:started:${id}`)).toBe(0);
    await kill(child!);

    await h.queue(PACING);
    const result = await outcome;
    expect(isAoError(result), String(result)).toBe(false);
    expect((result as { status: number }).status).toBe(201);
    await sleep(500);
    expect(fake.count("POST", PATH)).toBe(1);
  }, 30_000);

  it("answers outcome unknown and sends nothing when its broker died after setting the marker", async () => {
    const { id, outcome } = await writeHeldInPacing();
    // The dying broker's marker, as if it had died between the marker and the bytes leaving.
    await inspect.set(`${tag()}:started:${id}`, "dead-broker", "PX", 60_000);
    await kill(child!);
    // The next mutation may only go in a minute: the survivor must check the marker first, not
    // wait out pacing (or a deadline) for a write it will not send anyway.
    await inspect.set(`${tag()}:mutation:last`, String(Date.now() + 60_000));

    await h.queue(PACING);
    const takenOverAt = Date.now();
    const err = await outcome;
    expect(Date.now() - takenOverAt).toBeLessThan(10_000);
    expect(isAoError(err, UpstreamErrors.AO_ERR_WRITE_OUTCOME_UNKNOWN), String(err)).toBe(true);
    // The survivor ran the job and found the marker (not BullMQ failing a stalled job).
    expect((err as Error).message).toMatch(/earlier run of this write began sending/);
    await sleep(HOLD_MS);
    expect(fake.count("POST", PATH)).toBe(0);
  }, 30_000);
});
