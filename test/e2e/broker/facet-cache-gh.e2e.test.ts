/**
 * Issue 16 with real gh 2.23, real redis-server and the simulator: precise invalidation and
 * free-signal vouching as agents see them.
 * - A `gh pr create` in one session leaves another session's `gh pr checks` answers served from
 *   the cache (a new PR moves the repository's lists and its branch's lookup, nothing about PR 1).
 * - A CI change on PR 1 reaches every session watching it with `gh pr checks` within a guard
 *   period or so (the lifecycle's check-runs guard sees it and moves PR 1's checks facets).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectBroker } from "../../../client/index.js";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { type BrokerUnderTest, startBrokerUnderTest } from "../../support/broker-harness.js";
import { runProcess } from "../../support/cli-process.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";
import { checkout, scratch } from "../gh-sim/support.js";

const GUARD_MS = 500;
let redis: TestRedis;
let sim: RunningSimulator;
let broker: BrokerUnderTest;
let ipc: Awaited<ReturnType<typeof connectBroker>>;
let work: { dir: string; cleanup: () => void };

beforeAll(async () => {
  work = scratch("aob-facet-gh-");
  redis = await startTestRedis();
  sim = await startSimulator({ port: 0 });
  broker = await startBrokerUnderTest({
    redisUrl: redis.url,
    prefix: redis.prefix(),
    upstreamUrl: sim.url,
    config: {
      // Plain freshness far below the vouch window: a HIT past it comes from a vouch.
      cache: { graphqlFreshMs: { checks: 200, pullRequest: 200 }, guardedFreshMs: 20_000 },
      lifecycle: {
        settings: {
          cycleIntervalMs: GUARD_MS,
          repoIntervalMs: GUARD_MS,
          activeIntervalMs: GUARD_MS,
          quietIntervalMs: GUARD_MS,
          idleIntervalMs: GUARD_MS,
        },
      },
    },
  });
  ipc = await connectBroker({ socketPath: broker.broker.socketPath });
}, 60_000);

afterAll(async () => {
  await ipc?.close();
  await broker?.close();
  await sim?.close();
  await redis?.stop();
  work?.cleanup();
});

const ops = () => sim.stats().requests.byOperation;

async function sessionEnv(id: string): Promise<Record<string, string>> {
  const { env } = await broker.openSession(id);
  return {
    ...env,
    GH_CONFIG_DIR: `${work.dir}/gh-${id}`,
    GH_PROMPT_DISABLED: "1",
    GH_NO_UPDATE_NOTIFIER: "1",
  };
}

async function until<T>(probe: () => Promise<T | undefined>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("agents' gh through the broker, with the lifecycle watching PR 1", () => {
  it("a gh pr create elsewhere leaves gh pr checks served from cache; a CI change reaches every watcher", {
    timeout: 90_000,
  }, async () => {
    const pr1 = sim.world.repo("acme/widgets")?.pulls.get(1);
    expect(pr1).toBeDefined();
    await broker.openSession("watch-1");
    await ipc.watch({ sessionId: "watch-1", repo: "acme/widgets", branch: pr1?.headRef ?? "", pr: 1 });
    const [creator, watcherA, watcherB] = await Promise.all([
      sessionEnv("creator"),
      sessionEnv("watcher-a"),
      sessionEnv("watcher-b"),
    ]);
    const checks = (env: Record<string, string>) => runProcess("gh", ["pr", "checks", "1"], env, 30_000);

    // The lifecycle has read PR 1 (its facts are what its vouches stand on).
    await until(async () => {
      const status = (await ipc.lifecycleStatus()) as unknown as {
        sessions: { id: string; pr: unknown }[];
      };
      return status.sessions.find((x) => x.id === "watch-1")?.pr ? true : undefined;
    }, 20_000);
    const first = await checks(watcherA);
    expect(first.stdout.length).toBeGreaterThan(0);
    // Let the lifecycle vouch for PR 1 (its guards read it), then past plain freshness.
    await new Promise((r) => setTimeout(r, 4 * GUARD_MS));
    const before = ops().PullRequestStatusChecks ?? 0;
    const served = await checks(watcherA);
    expect(served.stdout).toBe(first.stdout);
    expect(ops().PullRequestStatusChecks ?? 0).toBe(before);

    // Another session creates a PR on a new branch.
    sim.inject({ type: "push", branch: "feature/facets", message: "facets" });
    // gh pr create runs in a checkout of the branch (as the write tests do), through the broker.
    const place = checkout(sim, work.dir, "feature/facets");
    const gitEnv = Object.fromEntries(Object.entries(place.env).filter(([k]) => k.startsWith("GIT_")));
    const { GH_REPO: _repo, ...creatorEnv } = creator;
    const created = await runProcess(
      "gh",
      ["pr", "create", "--title", "T", "--body", "B", "--head", "feature/facets"],
      { ...creatorEnv, ...gitEnv },
      30_000,
      { cwd: place.dir },
    );
    expect({ code: created.code, stderr: created.stderr.slice(0, 300) }).toMatchObject({ code: 0 });
    expect(created.stdout).toMatch(/\/pull\/\d+/);
    const afterCreate = await checks(watcherA);
    expect(afterCreate.stdout).toBe(first.stdout);
    expect(ops().PullRequestStatusChecks ?? 0).toBe(before);

    // CI moves on PR 1: a new check run starts. Every watcher sees it soon after a guard period.
    sim.inject({ type: "ci", pr: 1, ci: { runId: 4242, jobs: [{ name: "facet-check", durationS: 600 }] } });
    const seenAt = Date.now();
    const [a, b] = await Promise.all(
      [watcherA, watcherB].map((env) =>
        until(async () => {
          const r = await checks(env);
          return r.stdout.includes("facet-check") ? Date.now() : undefined;
        }, 20_000),
      ),
    );
    // Generous for a loaded machine: a guard period, a cycle, and gh's own start-up.
    expect(Math.max(a ?? 0, b ?? 0) - seenAt).toBeLessThan(10_000);
  });
});
