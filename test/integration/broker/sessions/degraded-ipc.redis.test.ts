/**
 * Issue 17, item 3: with the broker's Redis killed for 30 s, IPC degrades as the gateway does —
 * `broker.status` and `ao-broker status` say `degraded: true`, known sessions' reads answer, writes
 * are refused as NOT sent (and nothing reaches GitHub), an unknown session gets a clear retryable
 * error — and after Redis comes back EMPTY, a session used only over IPC keeps working without a
 * new `session.open`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddedRedis, startEmbeddedRedis } from "../../../../broker/index.js";
import { type BrokerClient, connectBroker } from "../../../../client/index.js";
import { type RunningSimulator, startSimulator } from "../../../../github-sim/index.js";
import { type BrokerUnderTest, startBrokerUnderTest } from "../../../support/broker-harness.js";
import { runCli } from "../../../support/cli-process.js";

const OUTAGE_MS = 30_000;

let dir: string;
let redis: EmbeddedRedis;
let sim: RunningSimulator;
let broker: BrokerUnderTest;
let ipc: BrokerClient;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const startRedis = () => startEmbeddedRedis({ dir, detached: false, persist: false });

async function killRedis(): Promise<void> {
  process.kill(redis.pid, "SIGKILL");
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(redis.pid, 0);
    } catch {
      return;
    }
    await sleep(50);
  }
  throw new Error("redis-server did not die");
}

async function status(): Promise<{ degraded: boolean; sessions: number }> {
  return (await ipc.status()) as unknown as { degraded: boolean; sessions: number };
}

async function until(condition: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await condition()) return;
    await sleep(100);
  }
  throw new Error("condition not met in time");
}

async function commentCount(): Promise<number> {
  const answer = await fetch(`${sim.url}/repos/acme/widgets/issues/1/comments?per_page=100`, {
    headers: { authorization: `token ${sim.token}` },
  });
  return ((await answer.json()) as unknown[]).length;
}

const readPr = (sessionId: string) =>
  ipc.rest({ sessionId, method: "GET", path: "/repos/acme/widgets/pulls/1", allowStale: false });
const writeComment = (sessionId: string, body: string) =>
  ipc.rest({
    sessionId,
    method: "POST",
    path: "/repos/acme/widgets/issues/1/comments",
    body: JSON.stringify({ body }),
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "aob-degraded-ipc-"));
  redis = await startRedis();
  sim = await startSimulator({ port: 0 });
  broker = await startBrokerUnderTest({
    redisUrl: redis.url,
    prefix: "degraded",
    upstreamUrl: sim.url,
    token: sim.token,
    config: { cache: { restFreshMs: 0 } },
  });
  ipc = await connectBroker({ socketPath: broker.broker.socketPath });
}, 60_000);

afterAll(async () => {
  await ipc?.close();
  await broker?.close();
  await sim?.close();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("IPC while Redis is away", () => {
  it("degrades like the gateway, refuses writes as not sent, and recovers IPC-only sessions from an empty restart", async () => {
    // Used only over IPC: its session token is never presented to the gateway.
    await ipc.openSession({ id: "ipc-only", repo: "acme/widgets" });
    const gatewayAgent = await broker.openSession("gateway-agent");
    expect((await readPr("ipc-only")).status).toBe(200);
    expect((await writeComment("ipc-only", "before the outage")).status).toBe(201);
    const gatewayRead = () =>
      fetch(`${broker.broker.gatewayUrl}/repos/acme/widgets/pulls/1`, {
        headers: { authorization: `token ${gatewayAgent.token}` },
      });
    expect((await gatewayRead()).status).toBe(200);
    expect((await status()).degraded).toBe(false);

    await killRedis();
    const outageEnds = Date.now() + OUTAGE_MS;
    await until(async () => (await status()).degraded, 10_000);

    const cli = await runCli(["status", "--json", "--socket", broker.broker.socketPath]);
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ degraded: true });
    const cliText = await runCli(["status", "--socket", broker.broker.socketPath]);
    expect(cliText.stdout).toMatch(/degraded/i);

    const commentsBefore = await commentCount();
    let reads = 0;
    let refusedWrites = 0;
    while (Date.now() < outageEnds) {
      expect((await readPr("ipc-only")).status).toBe(200);
      const graphql = await ipc.graphql({
        sessionId: "ipc-only",
        query: 'query { repository(owner: "acme", name: "widgets") { pullRequest(number: 1) { title } } }',
      });
      expect(graphql.status).toBe(200);
      reads += 2;
      const refused = await writeComment("ipc-only", `during the outage ${refusedWrites}`).catch(
        (e: unknown) => e,
      );
      expect((refused as { code?: string }).code).toBe("AO_ERR_WRITE_NOT_SENT");
      expect((refused as Error).message).toMatch(/NOT sent/);
      refusedWrites += 1;
      expect((await gatewayRead()).status).toBe(200);
      await sleep(1000);
    }
    expect(reads).toBeGreaterThan(20);
    // Not one refused write reached GitHub.
    expect(await commentCount()).toBe(commentsBefore);
    expect((await ipc.listSessions()).sessions.map((s) => s.id)).toEqual(
      expect.arrayContaining(["ipc-only", "gateway-agent"]),
    );
    const unknown = await ipc.openSession({ id: "brand-new", repo: "acme/widgets" }).catch((e: unknown) => e);
    expect((unknown as { code?: string }).code).toBe("AO_ERR_STATE_UNAVAILABLE");

    // Back, and empty.
    redis = await startRedis();
    await until(async () => !(await status()).degraded, 15_000);
    await until(async () => (await status()).sessions >= 2, 10_000);
    expect((await readPr("ipc-only")).status).toBe(200);
    expect((await writeComment("ipc-only", "after the empty restart")).status).toBe(201);
    expect(await commentCount()).toBe(commentsBefore + 1);
    expect((await gatewayRead()).status).toBe(200);
  }, 90_000);
});
