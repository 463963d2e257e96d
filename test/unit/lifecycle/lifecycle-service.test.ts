import { describe, expect, it } from "vitest";
import { isAoError } from "../../../common/index.js";
import { createManualClock } from "../../../lifecycle/clock.js";
import { LifecycleErrors } from "../../../lifecycle/errors.js";
import { createLifecycleService } from "../../../lifecycle/lifecycle-service.js";
import { createMemoryWatchStore, type WatchStore } from "../../../lifecycle/watch-store.js";
import { T0 } from "./support/facts.js";
import { createFakeGitHub } from "./support/fake-github.js";

const REPOS = ["acme/widgets", "acme/gadgets"];

function setup(
  options: { prs?: number; store?: WatchStore; config?: Record<string, unknown>; listVouches?: boolean } = {},
) {
  const clock = createManualClock(T0);
  const gh = createFakeGitHub(clock.now, { listVouches: options.listVouches ?? false });
  for (let i = 1; i <= (options.prs ?? 0); i++) {
    gh.addPr({ repo: REPOS[i % 2] as string, number: i, headRef: `feat/s${i}` });
  }
  const store = options.store ?? createMemoryWatchStore();
  const service = createLifecycleService({
    ports: gh.ports,
    store,
    clock,
    config: { stuckThresholdMs: 0, ...options.config },
  });
  const watchAll = async (n: number) => {
    for (let i = 1; i <= n; i++) {
      await service.watch({ id: `s${i}`, repo: REPOS[i % 2] as string, branch: `feat/s${i}`, pr: i });
    }
  };
  return { clock, gh, store, service, watchAll };
}
const eventsOf = (gh: ReturnType<typeof createFakeGitHub>, type: string) =>
  gh.events.filter((e) => e.type === type);

describe("lifecycle service", () => {
  describe("when nothing changes", () => {
    it("reads every PR once in ceil(n/25) points, then spends zero GraphQL points per cycle", async () => {
      const { clock, gh, service, watchAll } = setup({ prs: 60 });
      await watchAll(60);
      const first = await service.runCycle();
      expect(gh.counts.graphqlPoints).toBe(3);
      expect(first.enrichment).toMatchObject({ queries: 3, points: 3, prs: 60 });
      expect(eventsOf(gh, "pr-detected")).toHaveLength(60);
      expect(service.status().sessions.every((s) => s.status === "mergeable")).toBe(true);

      // The first quiet cycles make each PR guard's first read (a 200 that matches what is known,
      // so no refresh) — 100 guards per cycle at most; once every guard has an ETag, all are 304s.
      for (let cycle = 0; cycle < 4; cycle++) {
        clock.advance(120_000);
        gh.resetCounts();
        const report = await service.runCycle();
        expect(gh.counts.graphqlPoints).toBe(0);
        expect(gh.events).toEqual([]);
        expect(report.guards.requests).toBeGreaterThanOrEqual(62);
        if (cycle >= 2) expect(gh.counts.rest304).toBe(gh.counts.rest);
      }
    });

    it("runs the guards concurrently, not one after another", async () => {
      const { clock, gh, service, watchAll } = setup({ prs: 60 });
      await watchAll(60);
      await service.runCycle();
      clock.advance(120_000);
      gh.resetCounts();
      await service.runCycle();
      expect(gh.counts.maxRestInFlight).toBeGreaterThan(8);
    });
  });

  describe("when k PRs change", () => {
    it("applies CI changes read by the guards without GraphQL, raising each once and invalidating exactly those PRs", async () => {
      const { clock, gh, service, watchAll } = setup({ prs: 60 });
      await watchAll(60);
      await service.runCycle();
      clock.advance(120_000);
      await service.runCycle();
      const failed = [3, 17, 42];
      for (const n of failed) {
        gh.setCheck(REPOS[n % 2] as string, n, {
          name: "build",
          conclusion: "FAILURE",
          completedAt: clock.now(),
        });
      }
      clock.advance(120_000);
      gh.resetCounts();
      const report = await service.runCycle();
      expect(gh.counts.graphqlPoints).toBe(0);
      expect(report.guards.checksApplied).toBe(3);
      expect(
        eventsOf(gh, "ci-failed")
          .map((e) => e.sessionId)
          .sort(),
      ).toEqual(["s17", "s3", "s42"]);
      expect(gh.invalidations.map((i) => i.pr).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(failed);
      // Only the facets the checks move (checks, and the rollup-derived mergeability), with the head.
      for (const i of gh.invalidations) {
        expect(i.facets).toContain("checks");
        expect(i.facets).not.toContain("comments");
        expect(i.headSha).toEqual(expect.any(String));
      }
      expect(eventsOf(gh, "ci-failed")[0]?.pr).toMatchObject({ ciStatus: "failing", mergeable: false });

      gh.resetCounts();
      clock.advance(120_000);
      await service.runCycle();
      expect(gh.events).toEqual([]);
    });

    it("finds PR-level changes through the repository list guard", async () => {
      const { clock, gh, service, watchAll } = setup({ prs: 60 });
      await watchAll(60);
      await service.runCycle();
      clock.advance(11_000);
      await service.runCycle();
      const changed = Array.from({ length: 30 }, (_, i) => 2 * i + 1);
      for (const n of changed) gh.update(REPOS[n % 2] as string, n, { reviewDecision: "CHANGES_REQUESTED" });
      clock.advance(11_000);
      gh.resetCounts();
      await service.runCycle();
      expect(gh.counts.graphqlPoints).toBeLessThanOrEqual(Math.ceil(30 / 25));
      expect(eventsOf(gh, "changes-requested")).toHaveLength(30);
      expect(service.status().sessions.filter((s) => s.status === "changes_requested")).toHaveLength(30);
    });

    it("sees a merge and stops polling the merged PR", async () => {
      const { clock, gh, service, watchAll } = setup({ prs: 2 });
      // Reviewed, so the open PR keeps a review-comments guard as well (decision 0028).
      gh.pr("acme/gadgets", 1).reviews.push({ author: "hubot", state: "COMMENTED", submittedAt: T0 });
      await watchAll(2);
      await service.runCycle();
      const mergedSha = gh.pr("acme/widgets", 2).headSha;
      gh.update("acme/widgets", 2, { state: "MERGED" });
      clock.advance(11_000);
      await service.runCycle();
      expect(eventsOf(gh, "pr-merged").map((e) => e.sessionId)).toEqual(["s2"]);
      gh.resetCounts();
      clock.advance(600_000);
      await service.runCycle();
      expect(gh.counts.paths.filter((p) => p.includes("/pulls?state=all"))).toHaveLength(2);
      expect(gh.counts.paths.some((p) => p.includes(mergedSha) || p.includes("/pulls/2/"))).toBe(false);
      expect(gh.counts.paths.some((p) => p.includes("/pulls/1/comments"))).toBe(true);
    });
  });

  describe("the review-comments guard waits for a PR's first review (decision 0028)", () => {
    const commentReads = (gh: ReturnType<typeof createFakeGitHub>, number: number) =>
      gh.counts.paths.filter((p) => p.includes(`/pulls/${number}/comments`)).length;

    it("reads no review comments of a PR without a review, and keeps a reviewed PR's guard on its cadence", async () => {
      const { clock, gh, service, watchAll } = setup({ prs: 2 });
      gh.pr("acme/widgets", 2).reviews.push({ author: "hubot", state: "APPROVED", submittedAt: T0 });
      await watchAll(2);
      await service.runCycle();
      // 11 minutes of cycles: PR 2's baseline and two 5-minute reads, none for PR 1.
      for (let t = 0; t < 11 * 60_000; t += 10_000) {
        clock.advance(10_000);
        await service.runCycle();
      }
      expect(commentReads(gh, 1)).toBe(0);
      expect(commentReads(gh, 2)).toBe(3);
      // PR 1's other guards run as before.
      expect(gh.counts.paths.some((p) => p.includes(gh.pr("acme/gadgets", 1).headSha))).toBe(true);
    });

    it("baselines the guard once the PR's first review shows in its facts, then sees a comment edited", async () => {
      const { clock, gh, service, watchAll } = setup({ prs: 1 });
      await watchAll(1);
      await service.runCycle();
      clock.advance(10_000);
      await service.runCycle();
      clock.advance(10_000);
      await service.runCycle();
      expect(commentReads(gh, 1)).toBe(0);
      // A single line comment: a review with one comment; the PR's updated_at moves.
      gh.update("acme/gadgets", 1, {
        reviews: [{ author: "hubot", state: "COMMENTED", submittedAt: clock.now() }],
        comments: [{ id: 11, updatedAt: clock.now() }],
      });
      clock.advance(10_000);
      gh.resetCounts();
      await service.runCycle(); // the PR-list guard moves; the refresh reads the review
      expect(commentReads(gh, 1)).toBe(0);
      expect(gh.invalidations.flatMap((i) => i.facets)).toContain("threads");
      clock.advance(10_000);
      gh.resetCounts();
      await service.runCycle(); // the baseline read: it moves nothing
      expect(commentReads(gh, 1)).toBe(1);
      expect(gh.invalidations).toEqual([]);
      // An edit (updated_at need not move): the guard's next read, 5 minutes on, sees it.
      gh.pr("acme/gadgets", 1).comments[0] = { id: 11, updatedAt: clock.now() + 1_000 };
      clock.advance(300_000);
      gh.resetCounts();
      await service.runCycle();
      expect(commentReads(gh, 1)).toBe(1);
      expect(gh.invalidations).toContainEqual(
        expect.objectContaining({ pr: 1, facets: expect.arrayContaining(["threads"]) }),
      );
    });
  });

  describe("vouching for agents' cached answers", () => {
    const baseline = async (prs: number) => {
      const ctx = setup({ prs });
      await ctx.watchAll(prs);
      await ctx.service.runCycle();
      ctx.clock.advance(120_000);
      await ctx.service.runCycle();
      ctx.clock.advance(120_000);
      ctx.gh.resetCounts();
      return ctx;
    };
    const vouched = (gh: ReturnType<typeof createFakeGitHub>) =>
      gh.vouches.map((v) => v.pr).sort((a, b) => a - b);

    it("vouches for every open PR its guards saw unchanged, as of the time the guards were sent", async () => {
      const { clock, gh, service } = await baseline(4);
      const sentAt = clock.now();
      await service.runCycle();
      expect(vouched(gh)).toEqual([1, 2, 3, 4]);
      expect(gh.vouches.every((v) => v.at === sentAt)).toBe(true);
      // Only when the guards have looked again does a vouch advance.
      gh.resetCounts();
      await service.runCycle();
      expect(gh.vouches).toEqual([]);
      clock.advance(120_000);
      await service.runCycle();
      expect(gh.vouches.map((v) => v.at)).toEqual(Array(4).fill(clock.now()));
    });

    it("invalidates a PR whose guard moved even when no fact it keeps changed, and does not vouch for it then", async () => {
      const { gh, service } = await baseline(4);
      gh.update("acme/widgets", 2, { title: "A new title" });
      await service.runCycle();
      expect(gh.invalidations).toContainEqual(
        expect.objectContaining({ repo: "acme/widgets", pr: 2, reason: "lifecycle:guard-moved" }),
      );
      // A PR-list move says anything but CI may have changed: every facet but checks.
      const moved = gh.invalidations.find((i) => i.pr === 2 && i.reason === "lifecycle:guard-moved");
      expect(moved?.facets).toContain("core");
      expect(moved?.facets).not.toContain("checks");
      expect(vouched(gh)).toEqual([1, 3, 4]);
    });

    it("leaves a watched PR the lifecycle has read to its PR guards when the issues list first lists it, and invalidates what it does not track", async () => {
      const { clock, gh, service } = setup({ prs: 2, listVouches: true });
      gh.addPr({ repo: "acme/widgets", number: 9, headRef: "feat/other" });
      await service.watch({ id: "s2", repo: "acme/widgets", branch: "feat/s2", pr: 2 });
      // The lifecycle reads PR 2 first (as when a watch names its PR), then the issues list.
      gh.holdIssuesList(true);
      await service.runCycle();
      gh.holdIssuesList(false);
      clock.advance(120_000);
      gh.resetCounts();
      await service.runCycle();
      expect(gh.counts.paths.some((p) => p.startsWith("/repos/acme/widgets/issues?"))).toBe(true);
      const listMoved = gh.invalidations.filter((i) => i.reason === "lifecycle:list-moved");
      // The baseline is no change to PR 2 (its facets moved when the lifecycle first read it);
      // moving them again would make agents' answers stored since then stale under the vouch.
      expect(listMoved.map((i) => i.pr)).toEqual([9]);
      // A later change the list shows on PR 2 still moves it.
      gh.update("acme/widgets", 2, { title: "A new title" });
      clock.advance(120_000);
      gh.resetCounts();
      await service.runCycle();
      expect(gh.invalidations.some((i) => i.pr === 2)).toBe(true);
    });

    it("keeps the check guards of a PR agents are reading at the active cadence, so its vouch stays recent", async () => {
      const { clock, gh, service } = await baseline(4);
      await service.runCycle();
      gh.agentReads.set("acme/widgets#2", clock.now());
      clock.advance(10_000);
      gh.resetCounts();
      await service.runCycle();
      const checkGuards = gh.counts.paths.filter((p) => p.includes("/check-runs"));
      expect(checkGuards).toHaveLength(1);
      expect(checkGuards[0]).toContain(`/commits/${gh.pr("acme/widgets", 2).headSha}/`);
      expect(gh.vouches.map((v) => [v.pr, v.at])).toEqual([[2, clock.now()]]);
    });

    it("holds a PR back while the cache missed its invalidation, and vouches again once a repeat got through", async () => {
      const { clock, gh, service } = await baseline(4);
      gh.failInvalidate(Number.POSITIVE_INFINITY);
      gh.update("acme/widgets", 2, { title: "A new title" });
      await service.runCycle();
      expect(gh.invalidations).toEqual([]);
      expect(vouched(gh)).toEqual([1, 3, 4]);
      gh.failInvalidate(0);
      clock.advance(120_000);
      gh.resetCounts();
      await service.runCycle();
      expect(gh.invalidations.filter((i) => i.pr === 2)).toHaveLength(1);
      expect(vouched(gh)).toEqual([1, 2, 3, 4]);
    });
  });

  describe("when sessions have no PR yet", () => {
    it("looks branches up in one batched query, then detects new PRs from the PR list without GraphQL", async () => {
      const { clock, gh, service } = setup();
      gh.addPr({ repo: "acme/widgets", number: 5, headRef: "feat/a" });
      await service.watch({ id: "a", repo: "acme/widgets", branch: "feat/a" });
      await service.watch({ id: "b", repo: "acme/widgets", branch: "feat/b" });
      await service.runCycle();
      expect(gh.counts.queries.filter((q) => q.startsWith("query LifecycleDetect"))).toHaveLength(1);
      expect(service.status().sessions.map((s) => [s.id, s.status, s.prNumber])).toEqual([
        ["a", "mergeable", 5],
        ["b", "working", null],
      ]);

      gh.addPr({ repo: "acme/widgets", number: 6, headRef: "feat/b" });
      clock.advance(11_000);
      gh.resetCounts();
      await service.runCycle();
      expect(gh.counts.queries.filter((q) => q.startsWith("query LifecycleDetect"))).toHaveLength(0);
      expect(eventsOf(gh, "pr-detected").map((e) => [e.sessionId, e.prNumber])).toEqual([["b", 6]]);
      expect(gh.invalidations).toContainEqual(
        expect.objectContaining({ repo: "acme/widgets", reason: "lifecycle:pr-detected" }),
      );
    });

    it("follows a session to a new PR after its PR was closed", async () => {
      const { clock, gh, service } = setup();
      gh.addPr({ repo: "acme/widgets", number: 5, headRef: "feat/a" });
      await service.watch({ id: "a", repo: "acme/widgets", branch: "feat/a", pr: 5 });
      await service.runCycle();
      gh.update("acme/widgets", 5, { state: "CLOSED" });
      clock.advance(11_000);
      await service.runCycle();
      expect(service.status().sessions[0]?.status).toBe("idle");
      clock.advance(5_000);
      gh.addPr({ repo: "acme/widgets", number: 9, headRef: "feat/a" });
      clock.advance(11_000);
      await service.runCycle();
      expect(service.status().sessions[0]).toMatchObject({ prNumber: 9, status: "mergeable" });
    });
  });

  describe("when a webhook asks for a refresh", () => {
    it("applies the partial fact at once and invalidates; a payload carrying the check is not re-read", async () => {
      const { clock, gh, service } = setup();
      const pr = gh.addPr({ repo: "acme/widgets", number: 7, headRef: "feat/w" });
      gh.setCheck("acme/widgets", 7, {
        name: "build",
        status: "IN_PROGRESS",
        conclusion: null,
        completedAt: null,
      });
      await service.watch({ id: "w", repo: "acme/widgets", branch: "feat/w", pr: 7 });
      await service.runCycle();
      expect(service.status().sessions[0]?.status).toBe("pr_open");
      gh.resetCounts();

      gh.setCheck("acme/widgets", 7, {
        name: "build",
        status: "COMPLETED",
        conclusion: "FAILURE",
        completedAt: clock.now(),
      });
      const result = await service.refresh([
        {
          repo: "acme/widgets",
          headShas: [pr.headSha],
          reason: "check_run.completed",
          observations: [
            {
              kind: "check",
              repo: "acme/widgets",
              headSha: pr.headSha,
              check: {
                kind: "check-run",
                name: "build",
                status: "COMPLETED",
                conclusion: "FAILURE",
                url: null,
                startedAt: T0,
                completedAt: clock.now(),
                seenAt: clock.now(),
              },
            },
          ],
        },
      ]);
      expect(result.sessions).toEqual(["w"]);
      expect(gh.counts.graphqlQueries).toBe(0);
      expect(eventsOf(gh, "ci-failed")).toMatchObject([{ sessionId: "w", source: "webhook" }]);
      // A check_run webhook moves the PR's checks (and mergeability), nothing else it shows.
      expect(gh.invalidations).toMatchObject([
        { repo: "acme/widgets", pr: 7, reason: "webhook:check_run.completed", facets: ["checks"] },
      ]);

      // The payload carried the check's conclusion: nothing is re-read for it (decision 0021).
      clock.advance(5_000);
      await service.flush();
      expect(gh.counts.graphqlQueries).toBe(0);
      expect(eventsOf(gh, "ci-failed")).toHaveLength(1);
      expect(service.status().sessions[0]?.status).toBe("ci_failed");
    });

    it("batches the refreshes of a webhook burst", async () => {
      const { gh, service, watchAll } = setup({ prs: 40 });
      await watchAll(40);
      await service.runCycle();
      gh.resetCounts();
      for (let n = 1; n <= 40; n++)
        await service.refresh([
          { repo: REPOS[n % 2] as string, prNumbers: [n], reason: "pull_request_review.submitted" },
        ]);
      await service.flush();
      expect(gh.counts.graphqlQueries).toBe(2);
      expect(gh.counts.graphqlPoints).toBe(2);
    });

    it("applies a moved delivery's fact and raises its event, but invalidates nothing itself", async () => {
      const { clock, gh, service } = setup();
      const pr = gh.addPr({ repo: "acme/widgets", number: 7, headRef: "feat/w" });
      gh.setCheck("acme/widgets", 7, {
        name: "build",
        status: "IN_PROGRESS",
        conclusion: null,
        completedAt: null,
      });
      await service.watch({ id: "w", repo: "acme/widgets", branch: "feat/w", pr: 7 });
      await service.runCycle();
      await service.flush();
      gh.resetCounts();
      await service.refresh([
        {
          repo: "acme/widgets",
          headShas: [pr.headSha],
          reason: "check_run.completed",
          moved: true,
          observations: [
            {
              kind: "check",
              repo: "acme/widgets",
              headSha: pr.headSha,
              check: {
                kind: "check-run",
                name: "build",
                status: "COMPLETED",
                conclusion: "FAILURE",
                url: null,
                startedAt: T0,
                completedAt: clock.now(),
                seenAt: clock.now(),
              },
            },
          ],
        },
      ]);
      expect(eventsOf(gh, "ci-failed")).toMatchObject([{ sessionId: "w", source: "webhook" }]);
      expect(gh.invalidations).toEqual([]);
      clock.advance(5_000);
      await service.flush();
      expect(gh.counts.graphqlQueries).toBe(0);
    });

    it("gathers webhook re-reads for webhookGatherMs, and leaves the moves to a receiver that made them", async () => {
      const { clock, gh, service, watchAll } = setup({ prs: 2 });
      await watchAll(2);
      await service.runCycle();
      await service.flush(); // the watches' own re-read timer
      gh.resetCounts();
      const review = (n: number) => ({
        repo: REPOS[n % 2] as string,
        prNumbers: [n],
        reason: "pull_request_review.submitted",
        moved: true,
      });
      await service.refresh([review(1)]);
      clock.advance(4_000);
      await service.refresh([review(2)]);
      await service.refresh([review(1)]);
      // The receiver (the broker's patcher) moved them: the lifecycle invalidates nothing.
      expect(gh.invalidations).toEqual([]);
      clock.advance(999);
      expect(gh.counts.graphqlQueries).toBe(0);
      clock.advance(1);
      await service.flush();
      expect(gh.counts.graphqlQueries).toBe(1);
    });

    it("holds webhook re-reads the budget cannot pay for until a cycle can", async () => {
      const { gh, service, watchAll } = setup({ prs: 3 });
      await watchAll(3);
      await service.runCycle();
      gh.resetCounts();
      gh.budget = { remaining: 100, resetAt: T0 + 3_600_000 };
      await service.refresh([
        { repo: "acme/gadgets", prNumbers: [1, 3], reason: "pull_request_review.submitted" },
      ]);
      await service.flush();
      expect(gh.counts.graphqlQueries).toBe(0);
      gh.budget = undefined;
      const report = await service.runCycle();
      expect(report.enrichment.queries).toBe(1);
      expect(report.enrichment.prs).toBeGreaterThanOrEqual(2);
    });

    it("matches no session for an unwatched repository", async () => {
      const { service } = setup();
      expect(await service.refresh([{ repo: "nobody/here", prNumbers: [1], reason: "x" }])).toEqual({
        sessions: [],
      });
    });
  });

  describe("when the budget is short", () => {
    it("spends nothing past the reserve and catches up when the budget returns", async () => {
      const { gh, service, watchAll } = setup({ prs: 5 });
      gh.budget = { remaining: 400, resetAt: T0 + 3_600_000 };
      await watchAll(5);
      const starved = await service.runCycle();
      expect(gh.counts.graphqlQueries).toBe(0);
      expect(starved.enrichment.deferred).toBe(5);
      expect(starved.stretch).toBe(6);
      gh.budget = { remaining: 5_000, resetAt: T0 + 3_600_000 };
      await service.runCycle();
      expect(service.status().sessions.every((s) => s.status === "mergeable")).toBe(true);
    });
  });

  describe("when GitHub fails", () => {
    it("retries a failed batch on the next cycle", async () => {
      const { gh, service, watchAll } = setup({ prs: 3 });
      await watchAll(3);
      gh.failGraphQL(1);
      const failed = await service.runCycle();
      expect(failed.enrichment.deferred).toBe(3);
      expect(service.status().sessions.every((s) => s.status === "detecting")).toBe(true);
      await service.runCycle();
      expect(service.status().sessions.every((s) => s.status === "mergeable")).toBe(true);
    });

    it("stops the cycle's PR guards at a rate-limit answer and sends them next cycle", async () => {
      const { clock, gh, service, watchAll } = setup({ prs: 60, config: { restConcurrency: 1 } });
      await watchAll(60);
      await service.runCycle();
      clock.advance(120_000);
      gh.resetCounts();
      gh.rateLimitRest(1);
      const limited = await service.runCycle();
      expect(limited.guards.errors).toBe(1);
      expect(gh.counts.paths.every((p) => p.includes("/pulls?state=all"))).toBe(true);
      clock.advance(10_000);
      gh.resetCounts();
      const next = await service.runCycle();
      expect(next.guards.requests).toBeGreaterThan(60);
    });

    it("keeps polling when publishing an event fails", async () => {
      const { gh, service, watchAll } = setup({ prs: 2 });
      let calls = 0;
      gh.ports.publish = async () => {
        calls += 1;
        throw new Error("subscriber gone");
      };
      await watchAll(2);
      await service.runCycle();
      expect(calls).toBeGreaterThan(0);
      expect(service.status().totals.portErrors).toBe(calls);
      expect(service.status().sessions.every((s) => s.status === "mergeable")).toBe(true);
    });
  });

  describe("when the broker restarts", () => {
    it("resumes the watched sessions with their state and raises nothing again", async () => {
      const store = createMemoryWatchStore();
      const first = setup({ prs: 4, store });
      await first.watchAll(4);
      await first.service.runCycle();
      await first.service.close();

      const second = setup({ prs: 4, store });
      await second.service.start();
      expect(second.service.status().sessions.map((s) => s.status)).toEqual([
        "mergeable",
        "mergeable",
        "mergeable",
        "mergeable",
      ]);
      await second.service.runCycle();
      await second.service.close();
      expect(second.gh.events).toEqual([]);
    });
  });

  describe("the loop", () => {
    it("runs a cycle at start and then every cycleIntervalMs until closed", async () => {
      const { clock, service, watchAll } = setup({ prs: 2 });
      await watchAll(2);
      await service.start();
      await service.flush();
      const settle = async () => {
        for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
      };
      await settle();
      expect(service.status().totals.cycles).toBe(1);
      clock.advance(10_000);
      await settle();
      expect(service.status().totals.cycles).toBe(2);
      await service.close();
      clock.advance(100_000);
      await settle();
      expect(service.status().totals.cycles).toBe(2);
      expect(service.status().running).toBe(false);
    });
  });

  describe("its API", () => {
    it("refuses bad watches with AO_ERR_LIFECYCLE_INVALID_WATCH", async () => {
      const { service } = setup();
      for (const bad of [
        { id: "", repo: "a/b", branch: "x" },
        { id: "s", repo: "not-a-repo", branch: "x" },
        { id: "s", repo: "a/b", branch: "has space" },
        { id: "s", repo: "a/b", branch: "x", pr: 0 },
        { id: "s", repo: "a/b", branch: "x", pr: 1.5 },
        { id: "s", repo: "a/b", branch: "x", projectId: 5 as unknown as string },
      ]) {
        const error = await service.watch(bad).catch((e: unknown) => e);
        expect(isAoError(error, LifecycleErrors.AO_ERR_LIFECYCLE_INVALID_WATCH)).toBe(true);
      }
    });

    it("is idempotent for the same watch and forgets a session on unwatch", async () => {
      const { service, store } = setup();
      const a = await service.watch({ id: "s", repo: "a/b", branch: "x" });
      const again = await service.watch({ id: "s", repo: "a/b", branch: "x" });
      expect(again).toEqual(a);
      expect((await store.load()).watches).toHaveLength(1);
      expect(await service.unwatch("s")).toBe(true);
      expect(await service.unwatch("s")).toBe(false);
      expect(service.status().sessions).toEqual([]);
      expect((await store.load()).watches).toEqual([]);
    });

    it("follows an explicit new PR number on a repeated watch, keeping event ids unique", async () => {
      const { gh, service } = setup();
      gh.addPr({ repo: "acme/widgets", number: 5, headRef: "feat/a" });
      gh.addPr({ repo: "acme/widgets", number: 6, headRef: "feat/a2" });
      await service.watch({ id: "a", repo: "acme/widgets", branch: "feat/a", pr: 5 });
      await service.runCycle();
      const summary = await service.watch({ id: "a", repo: "acme/widgets", branch: "feat/a", pr: 6 });
      expect(summary).toMatchObject({ prNumber: 6, status: "detecting" });
      await service.runCycle();
      expect(service.status().sessions[0]).toMatchObject({ prNumber: 6, status: "mergeable" });
      const ids = gh.events.map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it("reports agent activity into the state machine", async () => {
      const { gh, service } = setup();
      await service.watch({ id: "s", repo: "a/b", branch: "x" });
      const summary = await service.report("s", "needs-input");
      expect(summary.status).toBe("needs_input");
      expect(eventsOf(gh, "agent-needs-input")).toHaveLength(1);
      const error = await service.report("nope", "activity").catch((e: unknown) => e);
      expect(isAoError(error, LifecycleErrors.AO_ERR_LIFECYCLE_UNKNOWN_SESSION)).toBe(true);
    });

    it("refuses work after close with AO_ERR_LIFECYCLE_CLOSED", async () => {
      const { service } = setup();
      await service.close();
      const error = await service.watch({ id: "s", repo: "a/b", branch: "x" }).catch((e: unknown) => e);
      expect(isAoError(error, LifecycleErrors.AO_ERR_LIFECYCLE_CLOSED)).toBe(true);
    });
  });

  describe("when webhooks arrive", () => {
    it("stretches every guard while deliveries keep coming, and polls normally again once they stop", async () => {
      const { clock, gh, service, watchAll } = setup({ prs: 4 });
      await watchAll(4);
      await service.runCycle();
      clock.advance(10_000);
      const normal = await service.runCycle();
      expect(normal.stretch).toBe(1);

      await service.refresh([{ repo: "acme/widgets", prNumbers: [2], reason: "check_run.completed" }]);
      clock.advance(10_000);
      gh.resetCounts();
      const backstop = await service.runCycle();
      expect(backstop.stretch).toBe(6);
      // Every guard interval is six times as long: none of the 10 s guards is due now.
      expect(backstop.guards.requests).toBe(0);

      clock.advance(120_000);
      const resumed = await service.runCycle();
      expect(resumed.stretch).toBe(1);
      expect(resumed.guards.requests).toBeGreaterThan(0);
    });
  });
});

describe("a poll cycle's hold on the broker's refresh (decision 0025)", () => {
  it("holds it from the cycle's start, flushes just before the enrichment, releases once at the end", async () => {
    const clock = createManualClock(T0);
    const gh = createFakeGitHub(clock.now, { listVouches: false });
    for (let i = 1; i <= 3; i++) gh.addPr({ repo: "acme/widgets", number: i, headRef: `feat/s${i}` });
    const log: string[] = [];
    const ports = {
      ...gh.ports,
      graphql: (...args: Parameters<typeof gh.ports.graphql>) => {
        log.push("graphql");
        return gh.ports.graphql(...args);
      },
      holdRefresh: () => {
        log.push("hold");
        return {
          flush: async () => {
            log.push("flush");
          },
          release: async () => {
            log.push("release");
          },
        };
      },
    };
    const service = createLifecycleService({
      ports,
      store: createMemoryWatchStore(),
      clock,
      config: { stuckThresholdMs: 0 },
    });
    for (let i = 1; i <= 3; i++)
      await service.watch({ id: `s${i}`, repo: "acme/widgets", branch: `feat/s${i}`, pr: i });
    log.length = 0;
    const report = await service.runCycle();
    expect(report.enrichment.queries).toBe(1);
    expect(log).toEqual(["hold", "flush", "graphql", "release"]);
    // A quiet cycle holds and releases too (nothing to send), and never sends GraphQL.
    log.length = 0;
    clock.advance(120_000);
    await service.runCycle();
    expect(log.filter((x) => x !== "graphql")).toEqual(["hold", "flush", "release"]);
    await service.close();
  });
});
