/**
 * The lifecycle against the simulator (HTTP, GitHub's cost arithmetic, ETags, secondary limits)
 * with its watches in a real redis-server: 500 watched sessions on `prs: 500`. The service's clock
 * follows the simulator's scenario clock, so CI moves in scenario time and the secondary limits see
 * the same minutes as the poller.
 */
import { Webhooks } from "@octokit/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import {
  type CycleReport,
  createDirectPorts,
  createLifecycleService,
  createManualClock,
  createRedisWatchStore,
  createWebhookHandler,
  type LifecycleEvent,
  type LifecycleService,
  type ManualClock,
  type WatchStore,
} from "../../../lifecycle/index.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

const SESSIONS = 500;
const FIRST = 101;
const REPO = "acme/widgets";
const SECRET = "webhook-secret-for-tests";

let redis: TestRedis;
let sim: RunningSimulator;
let store: WatchStore;
let clock: ManualClock;
let service: LifecycleService;
const events: (LifecycleEvent & { publishedAt: number })[] = [];
const cycleMs: number[] = [];

async function advance(ms: number): Promise<void> {
  await sim.advance(ms);
  clock.set(sim.now());
}

async function cycle(): Promise<{ report: CycleReport; points: number; rest: number; notModified: number }> {
  const before = sim.stats();
  const report = await service.runCycle();
  const after = sim.stats();
  cycleMs.push(report.durationMs);
  return {
    report,
    points: after.graphqlPoints - before.graphqlPoints,
    rest: after.requests.rest - before.requests.rest,
    notModified: after.requests.notModified - before.requests.notModified,
  };
}

const numbers = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);
const ciPush = (n: number, conclusion: "success" | "failure", durationS: number) =>
  sim.inject({
    type: "push",
    repo: REPO,
    branch: `gen/pr-${n}`,
    ci: { jobs: [{ name: "build", conclusion, startAfterS: 5, durationS }] },
  });

beforeAll(async () => {
  redis = await startTestRedis();
  sim = await startSimulator({ prs: SESSIONS });
  clock = createManualClock(sim.now());
  store = createRedisWatchStore({ location: redis.url, keyPrefix: redis.prefix() });
  const ports = createDirectPorts({
    baseUrl: sim.url,
    token: sim.token,
    publish: (event) => {
      events.push({ ...event, publishedAt: performance.now() });
    },
  });
  // 1,100 guards per cycle, so every PR guard (check runs, and review comments for reviewed PRs)
  // gets its first ETag in one cycle; cycles here are minutes apart in scenario time, so that
  // stays under the simulator's (GitHub's) 900 REST points per minute per endpoint.
  service = createLifecycleService({
    ports,
    store,
    clock,
    config: { maxRestPerMinute: 6_600, stuckThresholdMs: 0 },
  });
  for (const n of numbers(FIRST, SESSIONS)) {
    // One in ten sessions has not told us its PR: the lifecycle finds it from the branch.
    await service.watch({
      id: `s${n}`,
      repo: REPO,
      branch: `gen/pr-${n}`,
      ...(n % 10 === 0 ? {} : { pr: n }),
    });
  }
}, 60_000);

afterAll(async () => {
  await service?.close();
  await store?.close();
  await sim?.close();
  await redis?.stop();
  if (cycleMs.length > 0) {
    const sorted = [...cycleMs].sort((a, b) => a - b);
    const p95 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)];
    process.stdout.write(
      `lifecycle on github-sim, ${SESSIONS} sessions: ${cycleMs.length} cycles, p50 ${Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0)} ms, p95 ${Math.round(p95 ?? 0)} ms, max ${Math.round(sorted.at(-1) ?? 0)} ms\n`,
    );
  }
});

describe(`lifecycle on the simulator with ${SESSIONS} watched sessions`, () => {
  it("reads all 500 PRs in ceil(500/25) = 20 points, looking up 50 unannounced PRs in one query", async () => {
    const { points, report } = await cycle();
    // The first PR-list walk (5 pages of 20, newest first) finds some of the 50 branches; the
    // others are looked up together in one detection query (1 point).
    expect(report.detection.queries).toBe(1);
    expect(report.enrichment.points).toBe(20);
    expect(points).toBe(21);
    const sessions = service.status().sessions;
    expect(sessions.filter((s) => s.prNumber !== null)).toHaveLength(SESSIONS);
    expect(sessions.every((s) => s.status === "review_pending" && s.pr?.ciStatus === "passing")).toBe(true);
    expect(events.filter((e) => e.type === "pr-detected")).toHaveLength(SESSIONS);
  });

  it("spends 0 GraphQL points on quiet cycles, and answers every guard with a free 304 once baselined", async () => {
    events.length = 0;
    await advance(121_000);
    const baseline = await cycle();
    expect(baseline.points).toBe(0);
    // Check runs per PR, the PR list, and review comments only for PRs with a review (decision 0028).
    const reviewed = numbers(FIRST, SESSIONS).filter(
      (n) => (sim.world.repo(REPO)?.pulls.get(n)?.reviews.length ?? 0) > 0,
    ).length;
    expect(baseline.report.guards.requests).toBe(SESSIONS + reviewed + 1);
    await advance(121_000);
    const quiet = await cycle();
    expect(quiet.points).toBe(0);
    expect(quiet.notModified).toBe(quiet.rest);
    expect(quiet.rest).toBeGreaterThan(0);
    expect(events).toEqual([]);
  });

  it("spends at most ceil(k/25) points when k PRs change, and raises every CI completion within one cycle for free", async () => {
    const changed = numbers(FIRST, 40);
    const failing = new Set(changed.filter((n) => n % 2 === 1));
    for (const n of changed) ciPush(n, failing.has(n) ? "failure" : "success", 30);

    await advance(11_000);
    const pushed = await cycle();
    expect(pushed.points).toBeLessThanOrEqual(Math.ceil(changed.length / 25));
    expect(pushed.report.guards.moved).toBe(changed.length);

    events.length = 0;
    await advance(30_000);
    const completed = await cycle();
    // CI finishing moves no PR-level field: the check-runs guards read the runs completely and
    // apply them, so raising the 40 results costs no GraphQL at all.
    expect(completed.points).toBe(0);
    expect(completed.report.guards.checksApplied).toBeGreaterThanOrEqual(changed.length);
    const failedSessions = events.filter((e) => e.type === "ci-failed").map((e) => e.sessionId);
    const passedSessions = events.filter((e) => e.type === "ci-passed").map((e) => e.sessionId);
    expect(failedSessions.sort()).toEqual([...failing].map((n) => `s${n}`).sort());
    expect(passedSessions.sort()).toEqual(
      changed
        .filter((n) => !failing.has(n))
        .map((n) => `s${n}`)
        .sort(),
    );
    expect(events.find((e) => e.type === "ci-failed")?.pr).toMatchObject({
      ciStatus: "failing",
      mergeable: false,
    });

    await advance(121_000);
    const quiet = await cycle();
    expect(quiet.points).toBe(0);
  });

  it("raises CI completions delivered by webhook within 2 s, before any poll", async () => {
    const handler = createWebhookHandler({ secret: SECRET, lifecycle: service });
    const signer = new Webhooks({ secret: SECRET });
    const deliveries: Promise<unknown>[] = [];
    let delivered = 0;
    const deliver = (event: string, payload: unknown) => {
      const body = JSON.stringify(payload);
      delivered += 1;
      const id = `d-${delivered}`;
      deliveries.push(
        signer.sign(body).then((signature) =>
          handler.handleWebhook({
            headers: { "x-hub-signature-256": signature, "x-github-event": event, "x-github-delivery": id },
            rawBody: Buffer.from(body),
          }),
        ),
      );
    };
    const repo = () => sim.world.repo(REPO);
    const unsubscribe = sim.world.subscribe((change) => {
      if (change.repo !== REPO) return;
      if (change.kind === "pull_request.synchronize" && change.number !== undefined) {
        const pr = repo()?.pulls.get(change.number);
        if (!pr) return;
        deliver("pull_request", {
          action: "synchronize",
          repository: { full_name: REPO },
          pull_request: {
            number: pr.number,
            state: pr.state,
            draft: pr.draft,
            title: pr.title,
            merged: pr.merged,
            updated_at: new Date(pr.updatedAt).toISOString(),
            head: { ref: pr.headRef, sha: pr.headSha },
          },
        });
      }
      if (change.kind === "check_run.completed" && change.id !== undefined) {
        const run = repo()?.checkRuns.get(change.id);
        if (!run) return;
        deliver("check_run", {
          action: "completed",
          repository: { full_name: REPO },
          check_run: {
            name: run.name,
            head_sha: run.headSha,
            status: run.status,
            conclusion: run.conclusion,
            started_at: run.startedAt === null ? null : new Date(run.startedAt).toISOString(),
            completed_at: run.completedAt === null ? null : new Date(run.completedAt).toISOString(),
            pull_requests: [],
          },
        });
      }
    });

    const targets = numbers(FIRST + 100, 5);
    for (const n of targets) ciPush(n, "failure", 10);
    await Promise.all(deliveries.splice(0));
    events.length = 0;
    const deliveredAt = performance.now();
    await advance(16_000);
    await Promise.all(deliveries.splice(0));
    unsubscribe();
    const failed = events.filter((e) => e.type === "ci-failed");
    expect(failed.map((e) => e.sessionId).sort()).toEqual(targets.map((n) => `s${n}`));
    expect(failed.every((e) => e.source === "webhook")).toBe(true);
    for (const event of failed) expect(event.publishedAt - deliveredAt).toBeLessThan(2_000);
    const slowest = Math.max(...failed.map((e) => e.publishedAt - deliveredAt));
    process.stdout.write(
      `lifecycle on github-sim: webhook CI completions raised ${Math.round(slowest)} ms after delivery at worst\n`,
    );

    clock.advance(500);
    await service.flush();
    expect(events.filter((e) => e.type === "ci-failed")).toHaveLength(targets.length);
  });
});
