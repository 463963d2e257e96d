/**
 * The Actions guard (decision 0013): one conditional actions/runs read per repository and cycle,
 * where the cache listens for its vouches. It names exactly the runs that moved, sends only their
 * PRs to one GraphQL re-read, vouches for everything else, and turns the per-head check-runs
 * guards of the PRs it covers into a slow backstop.
 */
import { describe, expect, it } from "vitest";
import { createManualClock } from "../../../lifecycle/clock.js";
import { createLifecycleService } from "../../../lifecycle/lifecycle-service.js";
import { createMemoryWatchStore } from "../../../lifecycle/watch-store.js";
import { T0 } from "./support/facts.js";
import { createFakeGitHub } from "./support/fake-github.js";

const REPO = "acme/widgets";

async function setup(
  prs: number,
  options: { actionsVouches?: boolean; config?: Record<string, unknown>; pending?: readonly number[] } = {},
) {
  const clock = createManualClock(T0);
  const gh = createFakeGitHub(clock.now, {
    listVouches: true,
    actionsVouches: options.actionsVouches ?? true,
  });
  for (let i = 1; i <= prs; i++) gh.addPr({ repo: REPO, number: i, headRef: `feat/s${i}` });
  for (const n of options.pending ?? []) gh.setCheck(REPO, n, { name: "build", status: "IN_PROGRESS" });
  const service = createLifecycleService({
    ports: gh.ports,
    store: createMemoryWatchStore(),
    clock,
    config: { stuckThresholdMs: 0, ...options.config },
  });
  for (let i = 1; i <= prs; i++)
    await service.watch({ id: `s${i}`, repo: REPO, branch: `feat/s${i}`, pr: i });
  // Cold start, then the baselines: every guard's first read, and a check-runs read after the
  // Actions guard's first one (from then on the Actions guard covers the PR).
  await service.runCycle();
  for (let i = 0; i < 2; i++) {
    clock.advance(120_000);
    await service.runCycle();
  }
  // Agents read every PR (so without the Actions guard their check guards run every cycle).
  const readAll = () => {
    for (let i = 1; i <= prs; i++) gh.agentReads.set(`${REPO}#${i}`, clock.now());
  };
  readAll();
  clock.advance(10_000);
  await service.runCycle();
  gh.resetCounts();
  return { clock, gh, service, readAll };
}

const checkGuards = (paths: readonly string[]) => paths.filter((p) => p.includes("/check-runs"));
const actionsGuards = (paths: readonly string[]) => paths.filter((p) => p.includes("/actions/runs"));

describe("the Actions guard", () => {
  it("replaces the per-PR check-runs guards of PRs agents read with one free actions/runs read per cycle, and still vouches for them", async () => {
    const { clock, gh, service, readAll } = await setup(4);
    readAll();
    clock.advance(10_000);
    await service.runCycle();
    expect(actionsGuards(gh.counts.paths)).toEqual([
      `/repos/${REPO}/actions/runs?per_page=100&exclude_pull_requests=true`,
    ]);
    expect(checkGuards(gh.counts.paths)).toEqual([]);
    expect(gh.counts.rest304).toBe(gh.counts.rest);
    expect(gh.counts.graphqlPoints).toBe(0);
    // Every PR is vouched for as of this cycle (the Actions guard covers its checks) ...
    expect(gh.vouches.map((v) => [v.pr, v.at]).sort()).toEqual([1, 2, 3, 4].map((n) => [n, clock.now()]));
    // ... and so are the repository's runs and every head's commit checks.
    expect(gh.actionsVouches).toHaveLength(1);
    expect(gh.actionsVouches[0]).toMatchObject({ repo: REPO, at: clock.now() });
    expect(gh.actionsVouches[0]?.heads.map((h) => h.sha).sort()).toEqual(
      [1, 2, 3, 4].map((n) => gh.pr(REPO, n).headSha).sort(),
    );
  });

  it("without a cache listening for Actions vouches it does not run, and check guards keep their cadence", async () => {
    const { clock, gh, service, readAll } = await setup(4, { actionsVouches: false });
    readAll();
    clock.advance(10_000);
    await service.runCycle();
    expect(actionsGuards(gh.counts.paths)).toEqual([]);
    expect(checkGuards(gh.counts.paths)).toHaveLength(4);
  });

  it("a silent CI move (no event) on PR 2 → one invalidation of PR 2 after its re-read, and the runs target leaves PR 2's checks to it", async () => {
    const { clock, gh, service } = await setup(4, { pending: [2] });
    gh.resetCounts();
    clock.advance(10_000);
    gh.setCheck(REPO, 2, { name: "lint", status: "QUEUED", startedAt: clock.now() });
    await service.runCycle();
    expect(gh.events.filter((e) => e.sessionId === "s2" && e.type.startsWith("ci-"))).toEqual([]);
    const runs = gh.invalidations.find((i) => i.reason === "lifecycle:runs-moved");
    expect(runs?.runs).toEqual([expect.objectContaining({ branch: "feat/s2" })]);
    expect(runs?.handledBranches).toEqual(["feat/s2"]);
    // The guard's move and the snapshot's are one invalidation, of what the re-read saw move.
    const pr2 = gh.invalidations.filter((i) => i.pr === 2);
    expect(pr2).toHaveLength(1);
    expect(pr2[0]?.facets).toContain("checks");
    expect(pr2[0]?.facets).not.toContain("core");
  });

  it("a CI move on PR 2 → only PR 2's checks and its run's answers go, one GraphQL re-read, events within the cycle; the others stay vouched", async () => {
    const { clock, gh, service } = await setup(4);
    gh.setCheck(REPO, 2, {
      name: "build",
      status: "COMPLETED",
      conclusion: "FAILURE",
      completedAt: clock.now(),
    });
    clock.advance(10_000);
    const report = await service.runCycle();
    expect(checkGuards(gh.counts.paths)).toEqual([]);
    // One aliased query re-reads the PR whose CI moved (1 point), no check-runs REST call.
    expect(gh.counts.graphqlQueries).toBe(1);
    expect(report.enrichment.prs).toBeGreaterThanOrEqual(1);
    expect(gh.events.filter((e) => e.type === "ci-failed").map((e) => e.sessionId)).toEqual(["s2"]);
    const runs = gh.invalidations.find((i) => i.reason === "lifecycle:runs-moved");
    expect(runs?.pr).toBeUndefined();
    expect(runs?.runs).toEqual([
      expect.objectContaining({ headSha: gh.pr(REPO, 2).headSha, branch: "feat/s2" }),
    ]);
    // PR 2's own invalidations move its checks and name no run (the repository target did):
    // nothing repository-wide about Actions.
    const pr2 = gh.invalidations.filter((i) => i.pr === 2);
    expect(pr2.length).toBeGreaterThan(0);
    for (const target of pr2) {
      expect(target.facets).toContain("checks");
      expect(target.runs).toEqual([]);
    }
    expect(gh.invalidations.filter((i) => i.pr !== undefined && i.pr !== 2)).toEqual([]);
    expect(gh.vouches.map((v) => v.pr).sort()).toEqual([1, 3, 4]);
    const heads = gh.actionsVouches[0]?.heads.map((h) => h.sha) ?? [];
    expect(heads).not.toContain(gh.pr(REPO, 2).headSha);
    expect(heads).toHaveLength(3);
    // The next quiet cycle vouches for PR 2 again, still without a check-runs call.
    gh.resetCounts();
    clock.advance(10_000);
    await service.runCycle();
    expect(checkGuards(gh.counts.paths)).toEqual([]);
    expect(gh.vouches.map((v) => v.pr)).toContain(2);
  });

  it("takes a new Actions check run GraphQL shows as covered, with no check-runs read; another app's goes to its check-runs guard", async () => {
    const { clock, gh, service, readAll } = await setup(2);
    gh.setCheck(REPO, 1, { name: "lint", status: "IN_PROGRESS" });
    gh.setCheck(REPO, 2, { name: "deploy", status: "IN_PROGRESS", app: "vercel" });
    const paths: string[][] = [];
    for (let i = 0; i < 3; i++) {
      readAll();
      clock.advance(10_000);
      gh.resetCounts();
      await service.runCycle();
      paths.push(checkGuards(gh.counts.paths));
    }
    // PR 1: the snapshot names lint's app (GitHub Actions), so no page read is needed to cover it.
    // PR 2: GraphQL shows a check run of another app, which the runs list cannot see move: its
    // check-runs page is read, and its checks stay its own guard's.
    const pr1 = `/commits/${gh.pr(REPO, 1).headSha}/`;
    const pr2 = `/commits/${gh.pr(REPO, 2).headSha}/`;
    expect(paths.flat().filter((p) => p.includes(pr1))).toEqual([]);
    expect(paths.flat().filter((p) => p.includes(pr2)).length).toBeGreaterThan(0);
  });

  it("on a full page covers the heads off it only while their runs are all finished", async () => {
    // One run per page: the newest (PR 3's) is on it, PR 1's and PR 2's are off it.
    const { clock, gh, service, readAll } = await setup(3, { config: { actionsPageSize: 1 }, pending: [1] });
    readAll();
    clock.advance(10_000);
    gh.resetCounts();
    await service.runCycle();
    // PR 1's run may still move off the page: its check guard runs every cycle; PR 2 (finished) and
    // PR 3 (on the page) are the Actions guard's.
    expect(checkGuards(gh.counts.paths)).toEqual([
      expect.stringContaining(`/commits/${gh.pr(REPO, 1).headSha}/`),
    ]);
    expect(gh.actionsVouches[0]?.heads.map((h) => h.sha).sort()).toEqual(
      [2, 3].map((n) => gh.pr(REPO, n).headSha).sort(),
    );
  });

  it("keeps the check-runs guard as a backstop: due again after checksBackstopMs", async () => {
    const { clock, gh, service, readAll } = await setup(2);
    let seen = 0;
    for (let t = 0; t < 130_000; t += 10_000) {
      readAll();
      clock.advance(10_000);
      gh.resetCounts();
      await service.runCycle();
      seen += checkGuards(gh.counts.paths).length;
    }
    // 130 s of cycles: each PR's check-runs read once as the 120 s backstop, not 13 times.
    expect(seen).toBe(2);
  });

  it("leaves a PR with a non-Actions check run to its check-runs guard (the runs list cannot see it move)", async () => {
    const clock = createManualClock(T0);
    const gh = createFakeGitHub(clock.now, { listVouches: true, actionsVouches: true });
    gh.addPr({ repo: REPO, number: 1, headRef: "feat/s1" });
    const bot = gh.addPr({ repo: REPO, number: 2, headRef: "feat/s2" });
    bot.checks.push({
      name: "preview",
      app: "preview-bot",
      status: "IN_PROGRESS",
      conclusion: null,
      startedAt: clock.now(),
      completedAt: null,
    });
    const service = createLifecycleService({
      ports: gh.ports,
      store: createMemoryWatchStore(),
      clock,
      config: { stuckThresholdMs: 0 },
    });
    await service.watch({ id: "s1", repo: REPO, branch: "feat/s1", pr: 1 });
    await service.watch({ id: "s2", repo: REPO, branch: "feat/s2", pr: 2 });
    await service.runCycle();
    for (let i = 0; i < 3; i++) {
      clock.advance(120_000);
      gh.agentReads.set(`${REPO}#1`, clock.now());
      gh.agentReads.set(`${REPO}#2`, clock.now());
      await service.runCycle();
    }
    gh.resetCounts();
    clock.advance(10_000);
    await service.runCycle();
    // PR 2's CI is pending (a bot's check runs): its check guard runs every cycle; PR 1's does not.
    expect(checkGuards(gh.counts.paths)).toEqual([expect.stringContaining(`/commits/${bot.headSha}/`)]);
    expect(gh.actionsVouches[0]?.heads.map((h) => h.sha)).toEqual([gh.pr(REPO, 1).headSha]);
  });
});
