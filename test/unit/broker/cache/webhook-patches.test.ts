import { describe, expect, it } from "vitest";
import { NO_ALIASES, resolveWrite } from "../../../../broker/cache/core/resolve-write.js";
import { patchIsNewer, planWebhook } from "../../../../broker/cache/core/webhook-patches.js";

const repository = { full_name: "acme/widgets" };

function tagsOf(event: string, payload: Record<string, unknown>): string[] {
  const plan = planWebhook(event, { repository, ...payload });
  if (!plan) return [];
  return resolveWrite(plan.effect, {
    ...NO_ALIASES,
    objectBranch: new Map(plan.branches),
    branchObjects: new Map([["branch:acme/widgets:feature/x", ["num:acme/widgets#7"]]]),
  }).sort();
}

describe("planWebhook", () => {
  describe("when a payload carries a REST object", () => {
    it.each([
      {
        name: "pull_request patches pulls/N",
        event: "pull_request",
        payload: { action: "closed", number: 7, pull_request: { number: 7, head: { ref: "feature/x" } } },
        path: "/repos/acme/widgets/pulls/7",
      },
      {
        name: "check_run patches check-runs/{id}",
        event: "check_run",
        payload: {
          action: "completed",
          check_run: { id: 2008, head_sha: "abc", pull_requests: [{ number: 3 }] },
        },
        path: "/repos/acme/widgets/check-runs/2008",
      },
      {
        name: "workflow_job patches actions/jobs/{id}",
        event: "workflow_job",
        payload: { action: "in_progress", workflow_job: { id: 2002, run_id: 1001, head_sha: "abc" } },
        path: "/repos/acme/widgets/actions/jobs/2002",
      },
      {
        name: "workflow_run patches actions/runs/{id}",
        event: "workflow_run",
        payload: {
          action: "completed",
          workflow_run: { id: 1001, head_sha: "abc", head_branch: "feature/x" },
        },
        path: "/repos/acme/widgets/actions/runs/1001",
      },
    ])("$name", ({ event, payload, path }) => {
      const plan = planWebhook(event, { repository, ...payload });
      expect(plan?.patches.map((p) => p.path)).toEqual([path]);
      expect(plan?.patches[0]?.body).toBe((payload as Record<string, unknown>)[event]);
    });
  });

  describe("when an event moves facets", () => {
    it.each([
      {
        name: "a check run moves its head's checks and its PR's checks and mergeability, no run",
        event: "check_run",
        payload: {
          action: "completed",
          check_run: { id: 9, head_sha: "abc", pull_requests: [{ number: 3 }] },
        },
        has: [
          "sha:acme/widgets@abc:checks",
          "actions:acme/widgets:job:9",
          "num:acme/widgets#3:checks",
          "num:acme/widgets#3:merge",
          "list:acme/widgets:pulls:checks",
        ],
        not: [
          "actions:acme/widgets",
          "actions:acme/widgets:jobs",
          "num:acme/widgets#3:core",
          "num:acme/widgets#3:comments",
          "actions:acme/widgets:runs",
        ],
      },
      {
        name: "a workflow job moves its run, the run lists and the PRs of its branch",
        event: "workflow_job",
        payload: {
          action: "completed",
          workflow_job: { id: 5, run_id: 1001, head_sha: "abc", head_branch: "feature/x" },
        },
        has: [
          "actions:acme/widgets:run:1001",
          "actions:acme/widgets:runs",
          "actions:acme/widgets:runs@feature/x",
          "actions:acme/widgets:job:5",
          "sha:acme/widgets@abc:checks",
          "num:acme/widgets#7:checks",
        ],
        not: [
          "actions:acme/widgets",
          "actions:acme/widgets:jobs",
          "actions:acme/widgets:job:6",
          "actions:acme/widgets:run:1002",
          "num:acme/widgets#7:core",
        ],
      },
      {
        name: "a workflow run moves only its own run of the repository's runs",
        event: "workflow_run",
        payload: {
          action: "completed",
          workflow_run: { id: 1001, head_sha: "abc", pull_requests: [{ number: 3 }] },
        },
        has: ["actions:acme/widgets:run:1001", "num:acme/widgets#3:checks"],
        not: [
          "actions:acme/widgets:run:1002",
          "actions:acme/widgets",
          "actions:acme/widgets:jobs",
          "num:acme/widgets#3:reviews",
        ],
      },
      {
        name: "a PR event moves that PR's facets but checks, and its own branch lookup",
        event: "pull_request",
        payload: { action: "closed", pull_request: { number: 7, head: { ref: "feature/x" } } },
        has: [
          "num:acme/widgets#7:core",
          "num:acme/widgets#7:state",
          "num:acme/widgets#7:head",
          "num:acme/widgets#7:merge",
          "branch:acme/widgets:feature/x",
          "list:acme/widgets:pulls",
        ],
        not: [
          "num:acme/widgets#7:checks",
          "num:acme/widgets#7:reviews",
          "num:acme/widgets#8:core",
          "branches:acme/widgets",
        ],
      },
      {
        name: "an opened PR adds to the lists",
        event: "pull_request",
        payload: { action: "opened", pull_request: { number: 8, head: { ref: "feature/y" } } },
        has: ["list:acme/widgets:pulls", "branch:acme/widgets:feature/y"],
        not: ["num:acme/widgets#7:core"],
      },
      {
        name: "a review moves reviews, threads, comments and the merge state of its PR only",
        event: "pull_request_review",
        payload: { action: "submitted", review: {}, pull_request: { number: 3 } },
        has: [
          "num:acme/widgets#3:reviews",
          "num:acme/widgets#3:threads",
          "num:acme/widgets#3:comments",
          "num:acme/widgets#3:updated",
          "num:acme/widgets#3:merge",
        ],
        not: ["num:acme/widgets#3:checks", "num:acme/widgets#3:head", "num:acme/widgets#3:state"],
      },
      {
        name: "a comment moves comments of its issue or PR only",
        event: "issue_comment",
        payload: { action: "created", issue: { number: 10 }, comment: {} },
        has: ["num:acme/widgets#10:comments", "num:acme/widgets#10:updated"],
        not: ["num:acme/widgets#10:core", "num:acme/widgets#10:reviews", "num:acme/widgets#3:comments"],
      },
    ])("$name", ({ event, payload, has, not }) => {
      const tags = tagsOf(event, payload);
      for (const tag of has) expect(tags, tag).toContain(tag);
      for (const tag of not) expect(tags, tag).not.toContain(tag);
    });
  });

  describe("when a payload is not one it can read", () => {
    it.each([
      { name: "no repository", event: "check_run", payload: { check_run: { id: 1 } } },
      {
        name: "a repository name that is not owner/name",
        event: "check_run",
        payload: { repository: { full_name: "a/b/c" }, check_run: { id: 1 } },
      },
      { name: "no object", event: "pull_request", payload: { repository, action: "opened" } },
      {
        name: "an id that is not a positive integer",
        event: "workflow_run",
        payload: { repository, workflow_run: { id: "1" } },
      },
      { name: "an event it does not patch", event: "star", payload: { repository } },
      { name: "not an object", event: "check_run", payload: "nope" },
    ])("$name → nothing", ({ event, payload }) => {
      expect(planWebhook(event, payload)).toBeUndefined();
    });
  });
});

describe("patchIsNewer", () => {
  it.each([
    {
      name: "a newer updated_at wins",
      cached: { updated_at: "2026-01-01T00:00:00Z" },
      patch: { updated_at: "2026-01-01T00:00:05Z" },
      newer: true,
    },
    {
      name: "an older updated_at loses",
      cached: { updated_at: "2026-01-01T00:00:05Z" },
      patch: { updated_at: "2026-01-01T00:00:00Z" },
      newer: false,
    },
    {
      name: "completed beats in_progress",
      cached: { status: "in_progress" },
      patch: { status: "completed" },
      newer: true,
    },
    {
      name: "in_progress never replaces completed",
      cached: { status: "completed" },
      patch: { status: "in_progress" },
      newer: false,
    },
    {
      name: "the same status: the later completion wins",
      cached: { status: "completed", completed_at: "2026-01-01T00:00:09Z" },
      patch: { status: "completed", completed_at: "2026-01-01T00:00:01Z" },
      newer: false,
    },
    {
      name: "an unreadable cached body is replaced",
      cached: undefined,
      patch: { status: "queued" },
      newer: true,
    },
  ])("$name", ({ cached, patch, newer }) => {
    expect(patchIsNewer(cached, patch)).toBe(newer);
  });
});
