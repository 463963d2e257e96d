/**
 * Decision 0013 with real gh 2.23, real redis-server and the simulator: the lifecycle's Actions
 * guard (one conditional actions/runs read per repository and cycle) as agents see it.
 * - A CI change on PR 1 reaches every session watching it (`gh pr checks 1`, `gh run view` of the
 *   new run) within a guard period or so, although PR 1's check-runs guard is only a slow backstop.
 * - Another session's `gh run view 1002` (PR 2's run) and `gh pr checks 2` answers keep being
 *   served from the cache, before and after that change: the guard moved only PR 1's run and checks.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectBroker } from "../../../client/index.js";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { type BrokerUnderTest, startBrokerUnderTest } from "../../support/broker-harness.js";
import { runProcess } from "../../support/cli-process.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";
import { scratch } from "../gh-sim/support.js";

const GUARD_MS = 500;
let redis: TestRedis;
let sim: RunningSimulator;
let broker: BrokerUnderTest;
let ipc: Awaited<ReturnType<typeof connectBroker>>;
let work: { dir: string; cleanup: () => void };

beforeAll(async () => {
  work = scratch("aob-actions-gh-");
  redis = await startTestRedis();
  sim = await startSimulator({ port: 0 });
  broker = await startBrokerUnderTest({
    redisUrl: redis.url,
    prefix: redis.prefix(),
    upstreamUrl: sim.url,
    config: {
      // Plain freshness far below the vouch window: a HIT past it comes from a vouch.
      cache: {
        graphqlFreshMs: { checks: 200, pullRequest: 200 },
        restFreshMs: 200,
        guardedFreshMs: 20_000,
      },
      lifecycle: {
        settings: {
          cycleIntervalMs: GUARD_MS,
          repoIntervalMs: GUARD_MS,
          actionsIntervalMs: GUARD_MS,
          activeIntervalMs: GUARD_MS,
          quietIntervalMs: GUARD_MS,
          idleIntervalMs: GUARD_MS,
          // The check-runs guards of covered PRs must not be what sees the CI move.
          checksBackstopMs: 600_000,
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
const RUN = "GET /repos/{owner}/{repo}/actions/runs/{run_id}";
const JOBS = "GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs";
const CHECK_RUNS = "GET /repos/{owner}/{repo}/commits/{ref}/check-runs";

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

describe("agents' gh through the broker, with the lifecycle's Actions guard watching acme/widgets", () => {
  it("a CI change on PR 1 reaches every watcher within a guard period; PR 2's run view and pr checks stay served from cache", {
    timeout: 120_000,
  }, async () => {
    const repo = sim.world.repo("acme/widgets");
    const [pr1, pr2] = [repo?.pulls.get(1), repo?.pulls.get(2)];
    expect(pr1 && pr2).toBeTruthy();
    for (const [id, pr] of [
      ["watch-1", pr1],
      ["watch-2", pr2],
    ] as const) {
      await broker.openSession(id);
      await ipc.watch({ sessionId: id, repo: "acme/widgets", branch: pr?.headRef ?? "", pr: pr?.number });
    }
    const [watcherA, watcherB, other] = await Promise.all([
      sessionEnv("watcher-a"),
      sessionEnv("watcher-b"),
      sessionEnv("other"),
    ]);
    const gh = (env: Record<string, string>, args: string[]) => runProcess("gh", args, env, 30_000);

    await until(async () => {
      const status = (await ipc.lifecycleStatus()) as unknown as { sessions: { id: string; pr: unknown }[] };
      return status.sessions.filter((x) => x.pr).length === 2 ? true : undefined;
    }, 20_000);
    // The Actions guard baselines, then each PR's check-runs guard reads once after it: from then
    // on the Actions guard covers both PRs.
    await new Promise((r) => setTimeout(r, 6 * GUARD_MS));

    const view2 = await gh(other, ["run", "view", "1002"]);
    expect({ code: view2.code, stderr: view2.stderr.slice(0, 300) }).toMatchObject({ code: 0 });
    const checks2 = await gh(other, ["pr", "checks", "2"]);
    expect(checks2.stdout).toContain("build");
    // Past plain freshness: served on the Actions guard's and the PR guards' vouches.
    await new Promise((r) => setTimeout(r, 4 * GUARD_MS));
    const upstream = () => [ops()[RUN] ?? 0, ops()[JOBS] ?? 0, ops().PullRequestStatusChecks ?? 0];
    const before = upstream();
    expect((await gh(other, ["run", "view", "1002"])).stdout).toBe(view2.stdout);
    expect((await gh(other, ["pr", "checks", "2"])).stdout).toBe(checks2.stdout);
    expect(upstream()).toEqual(before);

    // CI moves on PR 1: a new workflow run re-runs its lint job. Every watcher sees it soon after
    // a guard period. (A job name the head's check-runs page already listed: a new name would make
    // the lifecycle read that page again, as another app's check run might hide behind it.)
    const baseline1 = (await gh(watcherA, ["pr", "checks", "1"])).stdout;
    expect(baseline1).toContain("lint");
    const checkRunsBefore = ops()[CHECK_RUNS] ?? 0;
    sim.inject({ type: "ci", pr: 1, ci: { runId: 4242, jobs: [{ name: "lint", durationS: 600 }] } });
    const movedAt = Date.now();
    const seen = await Promise.all(
      [watcherA, watcherB].map((env) =>
        until(async () => {
          const r = await gh(env, ["pr", "checks", "1"]);
          return r.stdout.length === 0 || r.stdout === baseline1 ? undefined : Date.now();
        }, 20_000),
      ),
    );
    // Generous for a loaded machine: a guard period, a cycle, and gh's own start-up.
    expect(Math.max(...seen) - movedAt).toBeLessThan(10_000);
    const run = await gh(watcherA, ["run", "view", "4242"]);
    expect(run.stdout).toContain("lint");
    // No check-runs guard saw it (they are a 10-minute backstop here): the Actions guard did.
    expect(ops()[CHECK_RUNS] ?? 0).toBe(checkRunsBefore);

    // PR 2's answers did not move: still served from the cache.
    const after = upstream();
    expect((await gh(other, ["run", "view", "1002"])).stdout).toBe(view2.stdout);
    expect((await gh(other, ["pr", "checks", "2"])).stdout).toBe(checks2.stdout);
    expect(upstream()).toEqual(after);
  });
});
