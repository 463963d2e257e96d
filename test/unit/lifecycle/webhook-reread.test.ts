import { describe, expect, it } from "vitest";
import { needsReread, type RefreshTarget } from "../../../lifecycle/core/webhook-signal.js";

const observed: RefreshTarget["observations"] = [
  {
    kind: "pr-event",
    repo: "acme/widgets",
    number: 7,
    state: "OPEN",
    updatedAt: 1,
    observedAt: 1,
  },
];
const check: RefreshTarget["observations"] = [
  {
    kind: "check",
    repo: "acme/widgets",
    headSha: "abc",
    check: {
      kind: "check-run",
      name: "ci",
      status: "COMPLETED",
      conclusion: "SUCCESS",
      url: null,
      startedAt: 1,
      completedAt: 2,
      seenAt: 2,
    },
  },
];

describe("needsReread: a payload that carries the fact needs no lifecycle re-read", () => {
  it.each([
    { reason: "pull_request.closed", observations: observed, reread: false },
    { reason: "pull_request.edited", observations: observed, reread: false },
    { reason: "pull_request.ready_for_review", observations: observed, reread: false },
    { reason: "pull_request.opened", observations: observed, reread: true },
    { reason: "pull_request.synchronize", observations: observed, reread: true },
    { reason: "pull_request.closed", observations: [], reread: true },
    { reason: "check_run.completed", observations: check, reread: false },
    { reason: "check_run.completed", observations: [], reread: true },
    { reason: "status", observations: check, reread: false },
    { reason: "status", observations: [], reread: true },
    { reason: "workflow_run.completed", observations: [], reread: false },
    { reason: "workflow_job.in_progress", observations: [], reread: false },
    { reason: "pull_request_review.submitted", observations: [], reread: true },
    { reason: "issue_comment.created", observations: [], reread: true },
    { reason: "check_suite.completed", observations: [], reread: true },
    { reason: "push", observations: [], reread: true },
  ])(
    "$reason with $observations.length observation(s) → re-read $reread",
    ({ reason, observations, reread }) => {
      expect(needsReread({ repo: "acme/widgets", reason, observations })).toBe(reread);
    },
  );
});
