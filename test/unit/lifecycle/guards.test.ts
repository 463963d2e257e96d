import { describe, expect, it } from "vitest";
import {
  checkRunsFromBody,
  checksToApply,
  parsePullList,
  reviewCommentsMark,
  scanPullPage,
  statusesFromBody,
} from "../../../lifecycle/core/guard-outcome.js";
import {
  type GuardPlanOptions,
  hasReviewActivity,
  type PrGuardState,
  planGuards,
} from "../../../lifecycle/core/guard-plan.js";
import { check, facts, T0 } from "./support/facts.js";

const OPTIONS: GuardPlanOptions = {
  activeIntervalMs: 10_000,
  quietIntervalMs: 60_000,
  idleIntervalMs: 120_000,
  idleAfterMs: 600_000,
  repoIntervalMs: 10_000,
  commentsIntervalMs: 300_000,
  repoPageSize: 20,
};
const pr = (over: Partial<PrGuardState> = {}): PrGuardState => ({
  repo: "acme/widgets",
  number: 1,
  open: true,
  headSha: "abc",
  ciStatus: "passing",
  hasStatusContexts: false,
  lastChangeAt: T0,
  checksEtag: 'W/"c"',
  statusEtag: undefined,
  commentsEtag: undefined,
  lastChecksAt: T0,
  lastCommentsAt: T0,
  reviewed: true,
  ...over,
});
const plan = (prs: PrGuardState[], now: number, extra: { stretch?: number; maxRequests?: number } = {}) =>
  planGuards({
    repos: [{ repo: "acme/widgets", etag: 'W/"r"', lastCheckedAt: T0 }],
    prs,
    now,
    options: OPTIONS,
    stretch: extra.stretch ?? 1,
    maxRequests: extra.maxRequests ?? 1_000,
  });

describe("guard planning", () => {
  it("checks the repository PR list (state=all, newest first) with its ETag once the interval passed", () => {
    expect(plan([], T0 + 9_999)).toEqual([]);
    expect(plan([], T0 + 10_000)).toEqual([
      {
        kind: "repo-prs",
        repo: "acme/widgets",
        path: "/repos/acme/widgets/pulls?state=all&sort=updated&direction=desc&per_page=20",
        etag: 'W/"r"',
        urgency: 1,
      },
    ]);
  });

  it.each([
    { name: "running CI → every 10 s", over: { ciStatus: "pending" as const }, due: 10_000 },
    { name: "changed recently → every 60 s", over: { lastChangeAt: T0 }, due: 60_000 },
    { name: "quiet for 10 min → every 120 s", over: { lastChangeAt: T0 - 600_000 }, due: 120_000 },
  ])("puts a PR's check-runs guard on its cadence: $name", ({ over, due }) => {
    const kinds = (now: number) => plan([pr(over)], now).filter((g) => g.kind === "check-runs");
    expect(kinds(T0 + due - 1)).toHaveLength(0);
    expect(kinds(T0 + due)).toMatchObject([
      {
        path: "/repos/acme/widgets/commits/abc/check-runs?filter=latest&per_page=100",
        etag: 'W/"c"',
        number: 1,
        sha: "abc",
      },
    ]);
  });

  it("makes a guard whose interval equals the cycle period due every cycle, read a few ms late", () => {
    const running = pr({ ciStatus: "pending" });
    const checks = (now: number, cycleMs?: number) =>
      planGuards({
        repos: [{ repo: "acme/widgets", etag: 'W/"r"', lastCheckedAt: T0 }],
        prs: [running],
        now,
        options: OPTIONS,
        stretch: 1,
        maxRequests: 1_000,
        ...(cycleMs !== undefined ? { cycleMs } : {}),
      }).map((g) => g.kind);
    // The previous cycle read the guards 8 ms after its start; this one starts 10 s after that start.
    expect(checks(T0 + 9_992)).toEqual([]);
    expect(checks(T0 + 9_992, 10_000)).toEqual(["repo-prs", "check-runs"]);
    // Never earlier than half a cycle before the interval.
    expect(checks(T0 + 4_999, 10_000)).toEqual([]);
    // A slow guard (60 s) on a 10 s loop is due from 55 s on, not at 50 s.
    const quiet = (now: number) =>
      planGuards({
        repos: [],
        prs: [pr()],
        now,
        options: OPTIONS,
        stretch: 1,
        maxRequests: 1_000,
        cycleMs: 10_000,
      }).filter((g) => g.kind === "check-runs");
    expect(quiet(T0 + 54_999)).toHaveLength(0);
    expect(quiet(T0 + 55_000)).toHaveLength(1);
  });

  it("plans the issues-list guard (issues and PRs by update) beside the PR list when asked, with its own ETag", () => {
    const guards = planGuards({
      repos: [
        {
          repo: "acme/widgets",
          etag: 'W/"r"',
          lastCheckedAt: T0,
          issues: { etag: 'W/"i"', lastCheckedAt: T0 + 5_000 },
        },
      ],
      prs: [],
      now: T0 + 10_000,
      options: OPTIONS,
      stretch: 1,
      maxRequests: 1_000,
    });
    // The PR list is due; the issues list, read 5 s later, is not yet (no cycle slack given).
    expect(guards.map((g) => g.kind)).toEqual(["repo-prs"]);
    const later = planGuards({
      repos: [
        {
          repo: "acme/widgets",
          etag: 'W/"r"',
          lastCheckedAt: T0,
          issues: { etag: 'W/"i"', lastCheckedAt: T0 },
        },
      ],
      prs: [],
      now: T0 + 10_000,
      options: OPTIONS,
      stretch: 1,
      maxRequests: 1_000,
    });
    expect(later.find((g) => g.kind === "repo-issues")).toMatchObject({
      path: "/repos/acme/widgets/issues?state=all&sort=updated&direction=desc&per_page=20",
      etag: 'W/"i"',
    });
  });

  it("adds the combined status only for PRs that have status contexts", () => {
    const now = T0 + 120_000;
    expect(plan([pr()], now).map((g) => g.kind)).toEqual(["repo-prs", "check-runs"]);
    expect(plan([pr({ hasStatusContexts: true })], now).map((g) => g.kind)).toEqual([
      "repo-prs",
      "check-runs",
      "commit-status",
    ]);
  });

  it("checks review comments every 5 minutes and never for closed PRs or PRs not read yet", () => {
    expect(plan([pr()], T0 + 300_000).map((g) => g.kind)).toContain("review-comments");
    expect(plan([pr({ open: false })], T0 + 300_000).map((g) => g.kind)).toEqual(["repo-prs"]);
    expect(plan([pr({ headSha: null })], T0 + 300_000).map((g) => g.kind)).toEqual(["repo-prs"]);
  });

  describe("review comments wait for the PR's first review (decision 0028)", () => {
    const comments = (p: PrGuardState, now: number) =>
      plan([p], now).filter((g) => g.kind === "review-comments");

    it("plans no review-comments guard for a PR with no review, never read or long due", () => {
      // Never read (the charged baseline): not due until a review shows.
      expect(comments(pr({ reviewed: false, lastCommentsAt: null }), T0)).toEqual([]);
      // Read before (a review since withdrawn from the facts' view): still nothing to watch.
      expect(comments(pr({ reviewed: false }), T0 + 3_600_000)).toEqual([]);
      // Its other guards are untouched.
      expect(plan([pr({ reviewed: false, lastCommentsAt: null })], T0 + 120_000).map((g) => g.kind)).toEqual([
        "repo-prs",
        "check-runs",
      ]);
    });

    it("plans the baseline read at once when the facts first show a review", () => {
      const before = facts({ number: 1 });
      const after = facts({
        number: 1,
        reviews: [{ author: "hubot", state: "COMMENTED", submittedAt: T0 + 5_000 }],
      });
      const state = (f: typeof before) => pr({ lastCommentsAt: null, reviewed: hasReviewActivity(f) });
      expect(comments(state(before), T0 + 10_000)).toEqual([]);
      expect(comments(state(after), T0 + 10_000)).toEqual([
        {
          kind: "review-comments",
          repo: "acme/widgets",
          number: 1,
          path: "/repos/acme/widgets/pulls/1/comments?sort=updated&direction=desc&per_page=1",
          urgency: Number.POSITIVE_INFINITY,
        },
      ]);
    });

    it("counts a review, an unresolved thread or a decision only a review gives as review activity", () => {
      expect(hasReviewActivity(facts())).toBe(false);
      expect(hasReviewActivity(facts({ reviewDecision: "REVIEW_REQUIRED" }))).toBe(false);
      expect(
        hasReviewActivity(facts({ reviews: [{ author: "a", state: "DISMISSED", submittedAt: T0 }] })),
      ).toBe(true);
      expect(hasReviewActivity(facts({ unresolvedThreadIds: ["t1"] }))).toBe(true);
      expect(hasReviewActivity(facts({ reviewDecision: "APPROVED" }))).toBe(true);
      expect(hasReviewActivity(facts({ reviewDecision: "CHANGES_REQUESTED" }))).toBe(true);
    });

    it("keeps a reviewed PR's guard as it was: every 5 minutes with its ETag, at once when never read", () => {
      const reviewed = pr({ commentsEtag: 'W/"rc"' });
      expect(comments(reviewed, T0 + 299_999)).toEqual([]);
      expect(comments(reviewed, T0 + 300_000)).toEqual([
        {
          kind: "review-comments",
          repo: "acme/widgets",
          number: 1,
          path: "/repos/acme/widgets/pulls/1/comments?sort=updated&direction=desc&per_page=1",
          etag: 'W/"rc"',
          urgency: 1,
        },
      ]);
      expect(comments(pr({ lastCommentsAt: null }), T0)).toMatchObject([
        { urgency: Number.POSITIVE_INFINITY },
      ]);
      // The same PR without a review: nothing.
      expect(comments({ ...reviewed, reviewed: false }, T0 + 300_000)).toEqual([]);
    });
  });

  it("stretches every interval by the budget factor", () => {
    expect(plan([pr({ ciStatus: "pending" })], T0 + 15_000, { stretch: 2 })).toEqual([]);
    expect(plan([pr({ ciStatus: "pending" })], T0 + 20_000, { stretch: 2 }).map((g) => g.kind)).toEqual([
      "repo-prs",
      "check-runs",
    ]);
  });

  it("when capped, sends the check guards of PRs with running CI before quieter ones", () => {
    const prs = [
      pr({ number: 1, lastChecksAt: null }),
      pr({ number: 2, ciStatus: "pending", lastChecksAt: T0 + 110_000 }),
    ];
    const guards = plan(prs, T0 + 130_000, { maxRequests: 2 });
    expect(guards.map((g) => [g.kind, g.number])).toEqual([
      ["repo-prs", undefined],
      ["check-runs", 2],
    ]);
  });

  it("when capped, keeps repository guards and the most overdue PRs", () => {
    const prs = [
      pr({ number: 1, lastChecksAt: T0 }),
      pr({ number: 2, lastChecksAt: T0 - 500_000 }),
      pr({ number: 3, lastChecksAt: null }),
    ];
    const guards = plan(prs, T0 + 130_000, { maxRequests: 3 });
    expect(guards.map((g) => [g.kind, g.number])).toEqual([
      ["repo-prs", undefined],
      ["check-runs", 3],
      ["check-runs", 2],
    ]);
  });
});

describe("guard outcomes", () => {
  const listed = (number: number, updated: number, over: Record<string, unknown> = {}) => ({
    number,
    updated_at: new Date(updated).toISOString(),
    state: "open",
    merged_at: null,
    head: { ref: `b${number}`, sha: `sha${number}`, repo: { full_name: "acme/widgets" } },
    ...over,
  });

  it("finds changed PRs and detections and stops at the high-water mark", () => {
    const items = parsePullList([
      listed(3, T0 + 3_000, { head: { ref: "feat/new", sha: "n", repo: { full_name: "acme/widgets" } } }),
      listed(2, T0 + 2_000),
      listed(1, T0 + 1_000),
      listed(9, T0 - 5_000),
    ]);
    expect(items).toHaveLength(4);
    const scan = scanPullPage({
      repo: "acme/widgets",
      items: items ?? [],
      known: new Map([
        [1, { updatedAt: T0 + 1_000, headSha: "sha1", state: "OPEN" as const }],
        [2, { updatedAt: T0, headSha: "sha2", state: "OPEN" as const }],
        [9, { updatedAt: T0 - 9_000, headSha: "sha9", state: "OPEN" as const }],
      ]),
      waitingBranches: new Map([["feat/new", new Set<number>()]]),
      highWater: T0 + 1_000,
    });
    expect(scan).toEqual({
      changed: [2],
      detected: [{ branch: "feat/new", pr: expect.objectContaining({ number: 3 }) }],
      reachedKnown: true,
      newest: T0 + 3_000,
    });
  });

  it("sees merges and closes through state, and ignores fork heads for detection", () => {
    const items =
      parsePullList([
        listed(1, T0, { state: "closed", merged_at: new Date(T0).toISOString() }),
        listed(2, T0, { head: { ref: "feat/x", sha: "s", repo: { full_name: "fork/widgets" } } }),
      ]) ?? [];
    expect(items.map((i) => i.state)).toEqual(["MERGED", "OPEN"]);
    const scan = scanPullPage({
      repo: "acme/widgets",
      items,
      known: new Map([[1, { updatedAt: T0, headSha: "sha1", state: "OPEN" as const }]]),
      waitingBranches: new Map([["feat/x", new Set<number>()]]),
      highWater: null,
    });
    expect(scan.changed).toEqual([1]);
    expect(scan.detected).toEqual([]);
  });

  it("parsePullList refuses a non-array body", () => {
    expect(parsePullList({ message: "Not Found" })).toBeUndefined();
  });

  const run = (over: Record<string, unknown> = {}) => ({
    name: "build",
    status: "completed",
    conclusion: "success",
    started_at: new Date(T0).toISOString(),
    completed_at: new Date(T0 + 60_000).toISOString(),
    details_url: "https://ci.example/1",
    ...over,
  });
  const body = (runs: Record<string, unknown>[], total = runs.length) => ({
    total_count: total,
    check_runs: runs,
  });
  const SEEN = T0 + 500_000;

  it("reads check runs as check facts, stamped with when the guard saw them", () => {
    expect(checkRunsFromBody(body([run()]), SEEN)).toEqual({
      checks: [check({ seenAt: SEEN })],
      complete: true,
    });
    expect(checkRunsFromBody(body([run()], 150), SEEN)?.complete).toBe(false);
    expect(checkRunsFromBody({ message: "x" }, SEEN)).toEqual({ checks: [], complete: true });
    expect(checkRunsFromBody([], SEEN)).toBeUndefined();
  });

  it.each([
    { name: "the same runs → nothing to do", runs: [run()], total: 1, known: facts(), verdict: [] },
    {
      name: "a run finished → applied without GraphQL",
      runs: [run({ conclusion: "failure", completed_at: new Date(T0 + 90_000).toISOString() })],
      total: 1,
      known: facts({
        checks: [check({ status: "IN_PROGRESS", conclusion: null, completedAt: null })],
        rollupState: "PENDING",
      }),
      verdict: ["build:FAILURE"],
    },
    {
      name: "a new run → applied",
      runs: [
        run(),
        run({ name: "lint", status: "queued", conclusion: null, started_at: null, completed_at: null }),
      ],
      total: 2,
      known: facts(),
      verdict: ["lint:null"],
    },
    {
      name: "a run behind the held one → nothing",
      runs: [run({ status: "in_progress", conclusion: null, completed_at: null })],
      total: 1,
      known: facts(),
      verdict: [],
    },
    {
      name: "a list cut by paging → GraphQL re-read",
      runs: [run({ name: "lint" })],
      total: 150,
      known: facts(),
      verdict: "refresh",
    },
    {
      name: "facts cut at the contexts page → GraphQL re-read",
      runs: [run({ name: "lint" })],
      total: 1,
      known: facts({ checksTotal: 60 }),
      verdict: "refresh",
    },
    {
      name: "nothing known yet → GraphQL re-read",
      runs: [run()],
      total: 1,
      known: undefined,
      verdict: "refresh",
    },
  ])("check runs: $name", ({ runs, total, known, verdict }) => {
    const result = checksToApply(known, checkRunsFromBody(body(runs, total), SEEN));
    expect(result === "refresh" ? result : result.map((c) => `${c.name}:${c.conclusion}`)).toEqual(verdict);
  });

  it("combined status: applies a context that moved", () => {
    const f = facts({
      checks: [
        check({
          kind: "status-context",
          name: "ci/x",
          status: "PENDING",
          conclusion: null,
          startedAt: T0,
          completedAt: null,
        }),
      ],
    });
    const same = statusesFromBody(
      { statuses: [{ context: "ci/x", state: "pending", created_at: new Date(T0).toISOString() }] },
      SEEN,
    );
    expect(checksToApply(f, same)).toEqual([]);
    const moved = statusesFromBody(
      { statuses: [{ context: "ci/x", state: "success", created_at: new Date(T0 + 5_000).toISOString() }] },
      SEEN,
    );
    expect(checksToApply(f, moved)).toMatchObject([
      { kind: "status-context", name: "ci/x", status: "SUCCESS", conclusion: "SUCCESS" },
    ]);
  });

  it("review comments: marks the newest comment", () => {
    expect(reviewCommentsMark([{ id: 5, updated_at: "2026-04-01T00:00:00Z" }])).toBe(
      "5@2026-04-01T00:00:00Z",
    );
    expect(reviewCommentsMark([])).toBe("none");
    expect(reviewCommentsMark({})).toBeUndefined();
  });
});
