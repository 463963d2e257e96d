/**
 * Many brokers (issue 9): three real daemons (`node dist/cli.js start --redis ...`, one key prefix)
 * share one Redis, as brokers on three orchestrator hosts would. Under load that asks for more
 * than the token's budget, one of them is killed with SIGKILL mid-run. What must hold:
 * - one global budget: the simulator never has to refuse a request for a spent budget, whatever
 *   broker sent it, and the brokers together spend close to (never beyond) what GitHub allows;
 * - coalescing across brokers: the same read arriving at all three at once is one upstream call;
 * - the survivors take over the queue: writes the dead broker had queued run exactly once, the
 *   one it was running (if any) at most once, and the queue drains.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrokerClient, connectBroker } from "../../../client/index.js";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";
import { CliBroker, freePort, queuedWrites } from "./cli-broker.js";

const LIMIT = 120;
const MARKER = /multi-[a-z]+-\d+/;

let dir: string;
let redis: TestRedis;
let inspect: Redis;
let sim: RunningSimulator;
const brokers: CliBroker[] = [];
const tokens: string[] = [];
const ipcClients: BrokerClient[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "aob-multi-"));
  redis = await startTestRedis();
  inspect = new Redis({ path: redis.server.socketPath });
  sim = await startSimulator({
    port: 0,
    limits: { core: LIMIT, graphql: 5000, search: 30 },
    windowSeconds: 120,
  });
  const config = {
    cache: { restFreshMs: 0 },
    gateway: { defaultDeadlineMs: 4_000 },
    budget: { reserve: { lifecycle: 0, interactive: 0 } },
    lifecycle: { enabled: false },
  };
  for (let i = 0; i < 3; i++) {
    const brokerDir = join(dir, `b${i}`);
    mkdirSync(brokerDir);
    brokers.push(
      new CliBroker({
        dir: brokerDir,
        upstreamUrl: sim.url,
        port: await freePort(),
        redisUrl: redis.url,
        config,
      }),
    );
  }
  await Promise.all(brokers.map((b) => b.start()));
  for (const [i, b] of brokers.entries()) {
    const client = await connectBroker({ socketPath: b.socketPath, timeoutMs: 90_000 });
    tokens.push((await client.openSession({ id: `host${i}`, repo: "acme/widgets" })).token);
    ipcClients.push(client);
  }
}, 90_000);

afterAll(async () => {
  await Promise.allSettled(ipcClients.map((c) => c.close()));
  await Promise.allSettled(brokers.map((b) => b.stop()));
  inspect?.disconnect();
  await sim?.close();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function call(
  i: number,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; cache: string; text: string }> {
  const b = brokers[i] as CliBroker;
  const res = await fetch(`${b.gatewayUrl}${path}`, {
    method,
    headers: { authorization: `token ${tokens[i]}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, cache: res.headers.get("x-ao-broker-cache") ?? "", text: await res.text() };
}

describe("three brokers on one Redis", () => {
  it("coalesces one read arriving at all three into one upstream call", async () => {
    sim.setFaults({
      rules: [
        { match: { pathPrefix: "/repos/acme/widgets/pulls/2" }, action: { type: "slow", delayMs: 500 } },
      ],
    });
    const before = sim.stats().requests.byOperation["GET /repos/{owner}/{repo}/pulls/{pull_number}"] ?? 0;
    const answers = await Promise.all([0, 1, 2].map((i) => call(i, "GET", "/repos/acme/widgets/pulls/2")));
    sim.setFaults(undefined);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const after = sim.stats().requests.byOperation["GET /repos/{owner}/{repo}/pulls/{pull_number}"] ?? 0;
    expect(after - before).toBe(1);
    expect(answers.map((a) => a.cache).sort()).toEqual(["COALESCED", "COALESCED", "MISS"]);
  }, 30_000);

  it("keeps one budget, never makes GitHub refuse, and lets the survivors finish a killed broker's queue", async () => {
    let stopped = false;
    let n = 0;
    const outcomes: { broker: number; status: number }[] = [];
    const writes = new Map<string, { broker: number; status: number }>();
    const alive = new Set([0, 1, 2]);
    const worker = async (i: number, write: boolean) => {
      while (!stopped && alive.has(i)) {
        const k = ++n;
        try {
          if (write) {
            // Over IPC, with a deadline long enough to outlive a crashed broker's hold on the lane
            // (a queued write whose deadline passes is dropped unsent, by design).
            const marker = `multi-comment-${k}`;
            writes.set(marker, { broker: i, status: 0 });
            const client = ipcClients[i] as BrokerClient;
            const r = await client.rest({
              sessionId: `host${i}`,
              method: "POST",
              path: "/repos/acme/widgets/issues/10/comments",
              body: JSON.stringify({ body: marker }),
              deadlineMs: 15_000,
            });
            writes.set(marker, { broker: i, status: r.status });
          } else {
            // Distinct pages: every read costs GitHub a request (no cache, no coalescing).
            const r = await call(i, "GET", `/repos/acme/widgets/pulls?state=all&per_page=1&page=${k}`);
            outcomes.push({ broker: i, status: r.status });
          }
        } catch {
          outcomes.push({ broker: i, status: 0 });
        }
      }
    };
    // Writes take GitHub 300 ms, and the victim has more writers: it will have writes queued.
    sim.setFaults({ rules: [{ match: { method: "POST" }, action: { type: "slow", delayMs: 300 } }] });
    const load = Promise.all([
      ...[0, 1, 2].flatMap((i) => [worker(i, false), worker(i, false), worker(i, false), worker(i, true)]),
      worker(2, true),
      worker(2, true),
    ]);
    await sleep(1_500);
    // Kill once the victim has writes waiting in the shared queue (the case the survivors must take over).
    const victimQueued = async () =>
      (await queuedWrites(inspect, "aob", MARKER)).queued.filter((m) => writes.get(m)?.broker === 2).length;
    const waitUntil = Date.now() + 8_000;
    while ((await victimQueued()) === 0 && Date.now() < waitUntil) await sleep(50);
    const victim = brokers[2] as CliBroker;
    alive.delete(2);
    await victim.kill();
    const atKill = await queuedWrites(inspect, "aob", MARKER);
    await sleep(3_000);
    stopped = true;
    await load;
    sim.setFaults(undefined);

    // The survivors drain the queue, the dead broker's share included.
    const drainBy = Date.now() + 30_000;
    for (;;) {
      const q = await queuedWrites(inspect, "aob", MARKER);
      if (q.queued.length + q.active.length === 0) break;
      expect(Date.now()).toBeLessThan(drainBy);
      await sleep(250);
    }

    // One budget: GitHub never refused; together the brokers spent what it allows, not more.
    const stats = sim.stats();
    expect(stats.requests.rateLimited).toBe(0);
    expect(stats.resources.core.used).toBeLessThanOrEqual(LIMIT);
    expect(stats.resources.core.used).toBeGreaterThan(LIMIT * 0.6);
    // Demand exceeded the budget, so some callers were told to wait and then refused at their deadline.
    expect(outcomes.filter((o) => o.status === 200).length).toBeGreaterThan(30);
    expect(outcomes.some((o) => o.status === 403 || o.status === 429)).toBe(true);

    // Writes: queued ones of the dead broker ran exactly once; none ran twice.
    const counts = new Map<string, number>();
    for (const c of sim.world.repo("acme/widgets")?.issues.get(10)?.comments ?? []) {
      const m = MARKER.exec(c.body)?.[0];
      if (m) counts.set(m, (counts.get(m) ?? 0) + 1);
    }
    expect([...counts].filter(([, c]) => c > 1)).toEqual([]);
    const deadQueued = atKill.queued.filter((m) => writes.get(m)?.broker === 2);
    expect(deadQueued.length).toBeGreaterThan(0);
    expect(deadQueued.filter((m) => counts.get(m) !== 1)).toEqual([]);
    expect(atKill.active.filter((m) => (counts.get(m) ?? 0) > 1)).toEqual([]);
    expect(atKill.queued.filter((m) => counts.get(m) !== 1)).toEqual([]);
    const accepted = [...writes].filter(([, w]) => w.status === 201).map(([m]) => m);
    expect(accepted.filter((m) => counts.get(m) !== 1)).toEqual([]);
    expect(accepted.length).toBeGreaterThan(0);
    // The survivors kept answering after the kill.
    const survivors = await Promise.all([0, 1].map((i) => call(i, "GET", "/rate_limit")));
    expect(survivors.map((s) => s.status)).toEqual([200, 200]);
    process.stdout.write(
      `many brokers: core used ${stats.resources.core.used}/${LIMIT}, ${outcomes.length} reads ` +
        `(${outcomes.filter((o) => o.status === 200).length} answered), ${writes.size} writes, ` +
        `${atKill.queued.length} queued at the kill (${deadQueued.length} from the dead broker), ${atKill.active.length} running\n`,
    );
  }, 90_000);
});
