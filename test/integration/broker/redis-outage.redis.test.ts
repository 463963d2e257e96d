/**
 * Redis restarts under load (issue 9): the broker never crashes, keeps answering (degraded to a
 * local conservative budget and direct upstream calls while Redis is away), its callers see no
 * errors, and once Redis returns — even empty — the shared state resumes and tokens keep working.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Octokit } from "@octokit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisClient, type EmbeddedRedis, startEmbeddedRedis } from "../../../broker/index.js";
import { connectBroker } from "../../../client/index.js";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { type BrokerUnderTest, startBrokerUnderTest } from "../../support/broker-harness.js";

let dir: string;
let redis: EmbeddedRedis;
let sim: RunningSimulator;
let broker: BrokerUnderTest;
let client: Octokit;

const startRedis = () => startEmbeddedRedis({ dir, detached: false, persist: true });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "aob-outage-"));
  redis = await startRedis();
  sim = await startSimulator({ port: 0 });
  broker = await startBrokerUnderTest({
    redisUrl: redis.url,
    prefix: "outage",
    upstreamUrl: sim.url,
    config: {
      cache: { restFreshMs: 0, graphqlFreshMs: { checks: 0, pullRequest: 0, issue: 0, other: 0 } },
      // The load repeats its queries, which batching would hold back up to 1.5 s as a polling loop.
      batching: { latencyBudgetMs: { repeat: 5 } },
    },
  });
  client = new Octokit({ baseUrl: broker.broker.gatewayUrl, auth: (await broker.openSession("s1")).token });
}, 60_000);

afterAll(async () => {
  await broker?.close();
  await sim?.close();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function load(stop: () => boolean): Promise<{ ok: number; failures: string[] }> {
  let ok = 0;
  const failures: string[] = [];
  await Promise.all(
    [1, 2, 3].map(async (pr) => {
      let n = 0;
      while (!stop()) {
        n++;
        try {
          const r = await (n % 2
            ? client.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", {
                owner: "acme",
                repo: "widgets",
                pull_number: pr,
              })
            : client.request("POST /graphql", {
                query: `query { repository(owner: "acme", name: "widgets") { pullRequest(number: ${pr}) { title } } }`,
              }));
          const errors = (r.data as { errors?: unknown }).errors;
          if (errors) failures.push(JSON.stringify(errors));
          else ok++;
        } catch (error) {
          failures.push(String((error as Error).message));
        }
        await sleep(20);
      }
    }),
  );
  return { ok, failures };
}

describe("Redis restarts under load", () => {
  it("restarting Redis 10 times loses no request and ends with the broker healthy", async () => {
    let done = false;
    const running = load(() => done);
    for (let i = 0; i < 10; i++) {
      await redis.stop();
      await sleep(400);
      redis = await startRedis();
      await sleep(400);
    }
    await sleep(500);
    done = true;
    const { ok, failures } = await running;
    expect(failures).toEqual([]);
    expect(ok).toBeGreaterThan(50);
    expect(sim.stats().requests.rateLimited).toBe(0);
    const ipc = await connectBroker({ socketPath: broker.broker.socketPath });
    const status = (await ipc.status()) as unknown as { degraded: boolean; redisOutages: number };
    await ipc.close();
    expect(status.degraded).toBe(false);
    expect(status.redisOutages).toBeGreaterThanOrEqual(10);
  }, 60_000);

  it("keeps the session's token working when Redis comes back without its data", async () => {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
    redis = await startRedis();
    await sleep(1500);
    const r = await client.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", {
      owner: "acme",
      repo: "widgets",
      pull_number: 1,
    });
    expect(r.status).toBe(200);
    const ipc = await connectBroker({ socketPath: broker.broker.socketPath });
    const { sessions } = await ipc.listSessions();
    await ipc.close();
    expect(sessions.map((s) => s.id)).toContain("s1");
  }, 30_000);

  it("keeps the token working when the data is gone but the connection never dropped", async () => {
    // No disconnect, so no health change starts the restore: the token's own lookup must notice.
    const wipe = createRedisClient(redis.url);
    await wipe.flushall();
    await wipe.quit();
    // Past the resolver's cache (2 s), so the next request looks the token up in the empty Redis.
    await sleep(2_500);
    const r = await client.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", {
      owner: "acme",
      repo: "widgets",
      pull_number: 1,
    });
    expect(r.status).toBe(200);
  }, 30_000);
});
