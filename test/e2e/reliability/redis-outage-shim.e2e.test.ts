/**
 * Redis restarts as the shim's callers see them (issue 9): agents run real gh 2.23 through the
 * shim while the broker's Redis is restarted five times, and once more with its data gone. Every
 * gh command must succeed — no rate-limit message, no broker error — because the broker degrades
 * (local conservative budget, direct upstream, tokens from memory) instead of failing, and puts
 * the sessions back when Redis returns empty.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type EmbeddedRedis,
  type RunningBroker,
  startBroker,
  startEmbeddedRedis,
} from "../../../broker/index.js";
import { silentLogger } from "../../../common/index.js";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import {
  agentEnv,
  type Completed,
  home,
  installTestShim,
  run,
  type Scratch,
  scratch,
} from "../../integration/agents-shim/harness.js";

let work: Scratch;
let redisDir: string;
let redis: EmbeddedRedis;
let sim: RunningSimulator;
let broker: RunningBroker;
let gh: string;

const startRedis = () => startEmbeddedRedis({ dir: redisDir, detached: false, persist: true });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const envFor = (session: string) =>
  agentEnv({
    bin: join(work.dir, "bin"),
    socket: broker.socketPath,
    home: home(work.dir, session),
    session,
    extra: { GH_REPO: "acme/widgets", AO_BROKER_SHIM_NOTICE_AFTER: "0" },
  });

beforeAll(async () => {
  work = scratch("aob-shim-outage-");
  redisDir = mkdtempSync(join(work.dir, "redis-"));
  redis = await startRedis();
  sim = await startSimulator({ port: 0 });
  broker = await startBroker({
    logger: silentLogger(),
    probeLocalRedis: false,
    env: { GITHUB_TOKEN: sim.token },
    overrides: {
      listen: "127.0.0.1:0",
      socket: join(work.dir, "broker.sock"),
      stateDir: join(work.dir, "state"),
      upstream: { url: sim.url, forwardClientHost: true },
      redis: { url: redis.url, prefix: "shimout" },
      cache: { restFreshMs: 0, graphqlFreshMs: { checks: 0, pullRequest: 0, issue: 0, other: 0 } },
    },
  });
  gh = installTestShim(join(work.dir, "bin")).shimPath;
  // Each agent's first command registers its session (while Redis is up).
  for (const id of ["agent-1", "agent-2"])
    expect((await run(gh, ["auth", "token"], { env: envFor(id) })).code).toBe(0);
}, 60_000);

afterAll(async () => {
  await broker?.close();
  await sim?.close();
  await redis?.stop();
  rmSync(redisDir, { recursive: true, force: true });
  work?.cleanup();
});

/** Two agents running gh commands back to back until `stop()`. */
async function agents(stop: () => boolean): Promise<Completed[]> {
  const results: Completed[] = [];
  await Promise.all(
    ["agent-1", "agent-2"].map(async (id, i) => {
      let n = 0;
      while (!stop()) {
        const args =
          n++ % 2 ? ["pr", "view", String(1 + i), "--json", "title"] : ["api", "repos/acme/widgets/pulls/3"];
        results.push(await run(gh, args, { env: envFor(id), timeoutMs: 60_000 }));
      }
    }),
  );
  return results;
}

function problems(results: Completed[]): string[] {
  return results
    .filter((r) => r.code !== 0 || /rate limit|ao-broker|error/i.test(r.stderr))
    .map((r) => `exit ${r.code}: ${r.stderr.slice(0, 300)}`);
}

describe("gh through the shim while Redis restarts", () => {
  it("succeeds for every command across five restarts", async () => {
    let done = false;
    const running = agents(() => done);
    for (let i = 0; i < 5; i++) {
      await redis.stop();
      await sleep(500);
      redis = await startRedis();
      await sleep(700);
    }
    done = true;
    const results = await running;
    expect(problems(results)).toEqual([]);
    expect(results.length).toBeGreaterThan(10);
    expect(sim.stats().requests.rateLimited).toBe(0);
  }, 120_000);

  it("succeeds when Redis comes back without its data", async () => {
    await redis.stop();
    rmSync(redisDir, { recursive: true, force: true });
    redis = await startRedis();
    let done = false;
    const running = agents(() => done);
    await sleep(3_000);
    done = true;
    const results = await running;
    expect(problems(results)).toEqual([]);
    expect(results.length).toBeGreaterThan(2);
  }, 60_000);
});
