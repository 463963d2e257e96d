/**
 * The floor for watch loops: ten agents polling the same PR (`gh pr checks --watch`) or the same
 * run (`gh run watch`) through the shim cost GitHub about one poll per freshness window, not ten —
 * the broker's cache serves the rest. Freshness is shortened to 2 s and gh polls every second, so
 * a few seconds show many windows: ten watchers make ~60 polls, GitHub sees a handful.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectBroker } from "../../../client/index.js";
import {
  agentEnv,
  type Completed,
  home,
  installTestShim,
  run,
  type Scratch,
  type ShimBroker,
  scratch,
  startShimBroker,
} from "../../integration/agents-shim/harness.js";

const WATCHERS = 10;
const FRESH_MS = 2000;
const WATCH_MS = 7000;

let work: Scratch;
let broker: ShimBroker;
let gh: string;
let bin: string;

/**
 * Runs `args` in ten sessions at once and stops them all after WATCH_MS (SIGTERM to each shim).
 * `polls` is how many requests the ten sessions sent the broker.
 */
async function tenWatchers(
  prefix: string,
  args: readonly string[],
): Promise<{ results: Completed[]; ms: number; polls: number }> {
  const ids = Array.from({ length: WATCHERS }, (_, i) => `${prefix}-${i}`);
  await Promise.all(ids.map((id) => run(gh, ["auth", "token"], { env: envFor(id) })));
  const started = Date.now();
  const results = await Promise.all(
    ids.map((id) =>
      run(gh, args, {
        env: envFor(id),
        onSpawn: (child) => setTimeout(() => child.kill("SIGTERM"), WATCH_MS),
      }),
    ),
  );
  const ms = Date.now() - started;
  const client = await connectBroker({ socketPath: broker.socketPath });
  const { sessions } = await client.listSessions();
  await client.close();
  const polls = sessions.filter((s) => ids.includes(s.id)).reduce((n, s) => n + s.stats.requests, 0);
  return { results, ms, polls };
}

const envFor = (session: string) =>
  agentEnv({
    bin,
    socket: broker.socketPath,
    home: home(work.dir, session),
    session,
    extra: { GH_REPO: "acme/widgets", AO_BROKER_SHIM_NOTICE_AFTER: "0" },
  });

beforeAll(async () => {
  work = scratch("aob-shim-watch-");
  bin = join(work.dir, "bin");
  gh = installTestShim(bin).shimPath;
  broker = await startShimBroker(join(work.dir, "broker"), {
    config: { cache: { restFreshMs: FRESH_MS, graphqlFreshMs: { checks: FRESH_MS, pullRequest: FRESH_MS } } },
  });
}, 60_000);

afterAll(async () => {
  await broker?.close();
  work?.cleanup();
});

describe("ten agents watching the same thing", () => {
  it("gh pr checks --watch: one StatusChecks query per freshness window reaches GitHub", async () => {
    broker.upstream.reset();
    const { results, ms, polls } = await tenWatchers("checks", [
      "pr",
      "checks",
      "3",
      "--watch",
      "--interval",
      "1",
    ]);
    for (const r of results) {
      expect(r.signal).toBe("SIGTERM");
      expect(r.stdout).toContain("deploy-preview\tpending");
    }
    const upstream = broker.upstream.stats().requests.byOperation.PullRequestStatusChecks ?? 0;
    const windows = Math.ceil(ms / FRESH_MS) + 1;
    // Each watcher polled several times (the broker also holds a watch query up to 2 s for partners).
    expect(polls).toBeGreaterThanOrEqual(WATCHERS * 3);
    expect(upstream).toBeGreaterThanOrEqual(1);
    expect(upstream).toBeLessThanOrEqual(windows);
  });

  it("gh run watch: each REST resource is fetched about once per freshness window", async () => {
    broker.upstream.reset();
    const started = broker.upstream.inject({
      type: "ci",
      pr: 2,
      ci: { runId: 1100, jobs: [{ name: "build", durationS: 120 }] },
    });
    expect(started.id).toBe(1100);
    const { results, ms, polls } = await tenWatchers("runs", ["run", "watch", "1100", "--interval", "1"]);
    for (const r of results) {
      expect(r.signal).toBe("SIGTERM");
      expect(r.stdout).toContain("1100");
    }
    const ops = broker.upstream.stats().requests.byOperation;
    const runGets = Object.entries(ops)
      .filter(
        ([op]) => op.startsWith("GET ") && op.includes("/actions/runs/{run_id}") && !op.includes("jobs"),
      )
      .reduce((n, [, count]) => n + count, 0);
    const windows = Math.ceil(ms / FRESH_MS) + 1;
    expect(runGets).toBeGreaterThanOrEqual(1);
    expect(runGets).toBeLessThanOrEqual(windows);
    // The ten watchers asked the broker far more often than the broker asked GitHub.
    const total = Object.values(ops).reduce((n, c) => n + c, 0);
    expect(polls).toBeGreaterThanOrEqual(WATCHERS * 6);
    expect(total * 3).toBeLessThan(polls);
  });
});
