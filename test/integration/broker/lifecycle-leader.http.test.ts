/**
 * Several brokers on one Redis run ONE lifecycle poller: watches made through any broker reach it,
 * events reach every broker's IPC subscribers, and when the polling broker stops another one takes
 * over the same watches.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrokerClient, connectBroker, type EventNotificationParams } from "../../../client/index.js";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { type BrokerUnderTest, startBrokerUnderTest } from "../../support/broker-harness.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

let redis: TestRedis;
let sim: RunningSimulator;
let first: BrokerUnderTest;
let second: BrokerUnderTest;
let ipcSecond: BrokerClient;
const seenOnSecond: EventNotificationParams[] = [];
const config = {
  lifecycle: {
    settings: {
      cycleIntervalMs: 300,
      repoIntervalMs: 300,
      activeIntervalMs: 300,
      quietIntervalMs: 300,
      idleIntervalMs: 300,
    },
  },
};

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  redis = await startTestRedis();
  sim = await startSimulator({ port: 0 });
  const prefix = redis.prefix();
  first = await startBrokerUnderTest({ redisUrl: redis.url, prefix, upstreamUrl: sim.url, config });
  second = await startBrokerUnderTest({ redisUrl: redis.url, prefix, upstreamUrl: sim.url, config });
  ipcSecond = await connectBroker({ socketPath: second.broker.socketPath });
  await ipcSecond.subscribe(["lifecycle.*"], (e) => seenOnSecond.push(e));
}, 60_000);

afterAll(async () => {
  await ipcSecond?.close();
  await second?.close();
  await first?.close();
  await sim?.close();
  await redis?.stop();
});

describe("one lifecycle poller per Redis", () => {
  it("serves a watch made through the broker that does not poll, and its events reach that broker", async () => {
    await second.openSession("s-frob");
    await ipcSecond.watch({ sessionId: "s-frob", repo: "acme/widgets", branch: "feature/frobnicator" });
    const summary = await until(async () => {
      const status = (await ipcSecond.lifecycleStatus()) as unknown as {
        sessions: { id: string; prKey: string | null }[];
      };
      return status.sessions.find((s) => s.id === "s-frob" && s.prKey) ?? undefined;
    });
    expect(summary.prKey).toBe("acme/widgets#1");
    await until(async () =>
      seenOnSecond.some((e) => (e.event as { type?: string }).type === "pr-detected") ? true : undefined,
    );
    // Exactly one event per transition, although two brokers relay Redis events.
    expect(seenOnSecond.filter((e) => (e.event as { type?: string }).type === "pr-detected")).toHaveLength(1);
  });

  it("keeps polling the same watches after the polling broker stops", async () => {
    await first.close();
    sim.inject({ type: "merge", pr: 1, method: "SQUASH" });
    await until(
      async () =>
        seenOnSecond.some((e) => (e.event as { type?: string }).type === "pr-merged") ? true : undefined,
      20_000,
    );
  }, 30_000);
});
