import { describe, expect, it } from "vitest";
import { interpretWebhook } from "../../../lifecycle/core/webhook-signal.js";

const NOW = Date.UTC(2026, 3, 1);
const repository = { full_name: "acme/widgets" };

describe("interpretWebhook", () => {
  it("pull_request: targets the PR and its branch, with the PR's state as a partial fact", () => {
    const signal = interpretWebhook(
      "pull_request",
      {
        action: "closed",
        repository,
        pull_request: {
          number: 7,
          state: "closed",
          merged: true,
          draft: false,
          title: "t",
          updated_at: "2026-04-01T00:00:05Z",
          head: { ref: "feat/w", sha: "abc" },
        },
      },
      NOW,
    );
    expect(signal).toEqual({
      kind: "target",
      target: {
        repo: "acme/widgets",
        prNumbers: [7],
        branches: ["feat/w"],
        observations: [
          {
            kind: "pr-event",
            repo: "acme/widgets",
            number: 7,
            state: "MERGED",
            updatedAt: Date.parse("2026-04-01T00:00:05Z"),
            headSha: "abc",
            isDraft: false,
            title: "t",
            observedAt: NOW,
          },
        ],
        reason: "pull_request.closed",
      },
    });
  });

  it("check_run: targets the head SHA and listed PRs, with the run as a partial fact", () => {
    const signal = interpretWebhook(
      "check_run",
      {
        action: "completed",
        repository,
        check_run: {
          name: "build",
          head_sha: "abc",
          status: "completed",
          conclusion: "failure",
          started_at: "2026-04-01T00:00:00Z",
          completed_at: "2026-04-01T00:01:00Z",
          details_url: "https://ci/1",
          pull_requests: [{ number: 7 }, { number: "x" }],
          check_suite: { head_branch: "feat/w" },
        },
      },
      NOW,
    );
    expect(signal.kind).toBe("target");
    if (signal.kind !== "target") return;
    expect(signal.target).toMatchObject({
      prNumbers: [7],
      headShas: ["abc"],
      branches: ["feat/w"],
      reason: "check_run.completed",
    });
    expect(signal.target.observations?.[0]).toMatchObject({
      kind: "check",
      headSha: "abc",
      check: {
        kind: "check-run",
        name: "build",
        status: "COMPLETED",
        conclusion: "FAILURE",
        completedAt: Date.parse("2026-04-01T00:01:00Z"),
        seenAt: NOW,
      },
    });
  });

  it("status: a commit status context as a partial fact", () => {
    const signal = interpretWebhook(
      "status",
      {
        repository,
        sha: "abc",
        context: "ci/x",
        state: "error",
        created_at: "2026-04-01T00:00:00Z",
        branches: [{ name: "feat/w" }],
      },
      NOW,
    );
    expect(signal).toMatchObject({
      kind: "target",
      target: {
        headShas: ["abc"],
        branches: ["feat/w"],
        observations: [
          { check: { kind: "status-context", name: "ci/x", status: "ERROR", conclusion: "ERROR" } },
        ],
      },
    });
  });

  it.each([
    {
      event: "pull_request_review",
      payload: { action: "submitted", repository, pull_request: { number: 7 } },
      target: { prNumbers: [7] },
    },
    {
      event: "pull_request_review_comment",
      payload: { action: "created", repository, pull_request: { number: 7 } },
      target: { prNumbers: [7] },
    },
    {
      event: "issue_comment",
      payload: { action: "created", repository, issue: { number: 7, pull_request: {} } },
      target: { prNumbers: [7] },
    },
    {
      event: "check_suite",
      payload: {
        action: "completed",
        repository,
        check_suite: { head_sha: "abc", head_branch: "b", pull_requests: [{ number: 7 }] },
      },
      target: { prNumbers: [7], headShas: ["abc"], branches: ["b"] },
    },
    {
      event: "push",
      payload: { repository, ref: "refs/heads/feat/w", after: "def" },
      target: { branches: ["feat/w"], headShas: ["def"] },
    },
  ])("$event: refresh only", ({ event, payload, target }) => {
    const signal = interpretWebhook(event, payload, NOW);
    expect(signal).toMatchObject({ kind: "target", target: { repo: "acme/widgets", ...target } });
  });

  it.each([
    { name: "an unhandled event", event: "star", payload: { repository } },
    { name: "a payload without a repository", event: "push", payload: { ref: "refs/heads/x" } },
    {
      name: "a comment on a plain issue",
      event: "issue_comment",
      payload: { repository, issue: { number: 3 } },
    },
    { name: "a tag push", event: "push", payload: { repository, ref: "refs/tags/v1" } },
    {
      name: "a pull_request without a number",
      event: "pull_request",
      payload: { repository, pull_request: {} },
    },
    {
      name: "a check_run without a SHA",
      event: "check_run",
      payload: { repository, check_run: { name: "x" } },
    },
    {
      name: "a repository name that is not owner/name",
      event: "push",
      payload: { repository: { full_name: "../../x" }, ref: "refs/heads/a" },
    },
  ])("ignores $name", ({ event, payload }) => {
    expect(interpretWebhook(event, payload, NOW).kind).toBe("ignored");
  });

  it("never throws on hostile shapes", () => {
    for (const payload of [
      null,
      1,
      "x",
      [],
      { repository: 5 },
      { repository, pull_request: [] },
      { repository, check_run: "x" },
    ]) {
      for (const event of ["pull_request", "check_run", "status", "push", "issue_comment", "check_suite"]) {
        expect(() => interpretWebhook(event, payload, NOW)).not.toThrow();
      }
    }
  });
});
