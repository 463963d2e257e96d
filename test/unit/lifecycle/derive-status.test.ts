import { describe, expect, it } from "vitest";
import { deriveStatus, type StatusInputs } from "../../../lifecycle/core/derive-status.js";
import { facts, T0 } from "./support/facts.js";

const base: StatusInputs = {
  status: "pr_open",
  prNumber: 7,
  pr: facts(),
  detectionDone: true,
  needsInput: false,
  lastActivityAt: T0,
};
const STUCK = { stuckThresholdMs: 600_000 };

describe("deriveStatus", () => {
  describe("when the PR is open (AO's priority order)", () => {
    it.each([
      {
        name: "CI failing beats everything",
        pr: { rollupState: "FAILURE", reviewDecision: "CHANGES_REQUESTED" },
        status: "ci_failed",
      },
      {
        name: "changes requested beats approval rules",
        pr: { reviewDecision: "CHANGES_REQUESTED" },
        status: "changes_requested",
      },
      { name: "approved and mergeable → mergeable", pr: { reviewDecision: "APPROVED" }, status: "mergeable" },
      {
        name: "no review required and mergeable → mergeable",
        pr: { reviewDecision: null },
        status: "mergeable",
      },
      {
        name: "approved but CI pending → approved",
        pr: { reviewDecision: "APPROVED", rollupState: "PENDING" },
        status: "approved",
      },
      {
        name: "approved but conflicting → approved",
        pr: { reviewDecision: "APPROVED", mergeable: "CONFLICTING" },
        status: "approved",
      },
      {
        name: "review required → review_pending",
        pr: { reviewDecision: "REVIEW_REQUIRED" },
        status: "review_pending",
      },
      {
        name: "review required beats stuck",
        pr: { reviewDecision: "REVIEW_REQUIRED" },
        idle: true,
        status: "review_pending",
      },
      {
        name: "no review, CI pending, idle → stuck",
        pr: { rollupState: "PENDING" },
        idle: true,
        status: "stuck",
      },
      { name: "no review, CI pending → pr_open", pr: { rollupState: "PENDING" }, status: "pr_open" },
      { name: "a draft with green CI → pr_open", pr: { isDraft: true }, status: "pr_open" },
    ])("$name", ({ pr, idle, status }) => {
      const now = idle ? T0 + 600_000 : T0 + 1_000;
      expect(deriveStatus({ ...base, pr: facts(pr) }, now, STUCK)).toBe(status);
    });
  });

  describe("when the PR is not open, or there is none", () => {
    it.each([
      { name: "merged → merged", inputs: { pr: facts({ state: "MERGED" }) }, status: "merged" },
      { name: "closed → idle", inputs: { pr: facts({ state: "CLOSED" }) }, status: "idle" },
      {
        name: "merged beats needs_input",
        inputs: { pr: facts({ state: "MERGED" }), needsInput: true },
        status: "merged",
      },
      {
        name: "needs_input beats CI failing",
        inputs: { pr: facts({ rollupState: "FAILURE" }), needsInput: true },
        status: "needs_input",
      },
      { name: "a known PR number not read yet → detecting", inputs: { pr: null }, status: "detecting" },
      {
        name: "never looked up → detecting",
        inputs: { pr: null, prNumber: null, detectionDone: false },
        status: "detecting",
      },
      { name: "looked up, none → working", inputs: { pr: null, prNumber: null }, status: "working" },
      { name: "no PR and idle → stuck", inputs: { pr: null, prNumber: null }, idle: true, status: "stuck" },
      {
        name: "no PR and never active → working",
        inputs: { pr: null, prNumber: null, lastActivityAt: null },
        idle: true,
        status: "working",
      },
      {
        name: "terminal statuses stay",
        inputs: { status: "killed" as const, pr: facts({ rollupState: "FAILURE" }) },
        status: "killed",
      },
    ])("$name", ({ inputs, idle, status }) => {
      const now = idle ? T0 + 600_000 : T0 + 1_000;
      expect(deriveStatus({ ...base, ...inputs }, now, STUCK)).toBe(status);
    });
  });

  it("never reports stuck when the threshold is 0", () => {
    expect(
      deriveStatus({ ...base, pr: facts({ rollupState: "PENDING" }) }, T0 + 10 ** 9, { stuckThresholdMs: 0 }),
    ).toBe("pr_open");
  });
});
