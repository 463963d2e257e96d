import { describe, expect, it } from "vitest";
import { mapCiState, mapReviewDecision, toEnrichment } from "../../../lifecycle/core/pr-enrichment.js";
import { check, facts } from "./support/facts.js";

describe("PR enrichment (AO's PREnrichmentData)", () => {
  describe("when mapping the CI rollup state", () => {
    it.each([
      { state: "SUCCESS", ci: "passing" },
      { state: "FAILURE", ci: "failing" },
      { state: "ERROR", ci: "failing" },
      { state: "TIMED_OUT", ci: "failing" },
      { state: "CANCELLED", ci: "failing" },
      { state: "ACTION_REQUIRED", ci: "failing" },
      { state: "PENDING", ci: "pending" },
      { state: "EXPECTED", ci: "pending" },
      { state: "QUEUED", ci: "pending" },
      { state: "IN_PROGRESS", ci: "pending" },
      { state: "WAITING", ci: "pending" },
      { state: null, ci: "none" },
    ])("maps $state to $ci", ({ state, ci }) => {
      expect(mapCiState(state)).toBe(ci);
    });
  });

  describe("when mapping the review decision", () => {
    it.each([
      { decision: "APPROVED", review: "approved" },
      { decision: "CHANGES_REQUESTED", review: "changes_requested" },
      { decision: "REVIEW_REQUIRED", review: "pending" },
      { decision: null, review: "none" },
    ])("maps $decision to $review", ({ decision, review }) => {
      expect(mapReviewDecision(decision)).toBe(review);
    });
  });

  describe("when deciding mergeable (open ∧ CI ok ∧ review ok ∧ no conflicts ∧ not behind ∧ not draft)", () => {
    it.each([
      { name: "a clean open PR", change: {}, mergeable: true, blockers: [] },
      { name: "approved and green", change: { reviewDecision: "APPROVED" }, mergeable: true, blockers: [] },
      { name: "no CI at all", change: { rollupState: null, checks: [] }, mergeable: true, blockers: [] },
      {
        name: "CI failing",
        change: { rollupState: "FAILURE" },
        mergeable: false,
        blockers: ["CI is failing"],
      },
      {
        name: "CI pending",
        change: { rollupState: "PENDING" },
        mergeable: false,
        blockers: ["CI is pending"],
      },
      {
        name: "review required",
        change: { reviewDecision: "REVIEW_REQUIRED" },
        mergeable: false,
        blockers: ["Review required"],
      },
      {
        name: "changes requested",
        change: { reviewDecision: "CHANGES_REQUESTED" },
        mergeable: false,
        blockers: ["Changes requested"],
      },
      {
        name: "conflicting",
        change: { mergeable: "CONFLICTING" },
        mergeable: false,
        blockers: ["Merge conflicts"],
      },
      {
        name: "behind base",
        change: { mergeStateStatus: "BEHIND" },
        mergeable: false,
        blockers: ["Branch is behind base"],
      },
      { name: "a draft", change: { isDraft: true }, mergeable: false, blockers: ["PR is a draft"] },
      { name: "merged", change: { state: "MERGED" as const }, mergeable: false, blockers: [] },
      { name: "closed", change: { state: "CLOSED" as const }, mergeable: false, blockers: [] },
    ])("$name → mergeable $mergeable", ({ change, mergeable, blockers }) => {
      const e = toEnrichment(facts(change));
      expect(e.mergeable).toBe(mergeable);
      expect(e.blockers).toEqual(blockers);
    });
  });

  it("fills every optional field and maps checks to AO's ciChecks", () => {
    const e = toEnrichment(
      facts({
        mergeable: "CONFLICTING",
        mergeStateStatus: "BEHIND",
        checks: [
          check({ name: "lint", status: "IN_PROGRESS", conclusion: null, completedAt: null }),
          check({ name: "unit", conclusion: "FAILURE" }),
          check({ name: "docs", conclusion: "SKIPPED" }),
          check({ name: "queued", status: "QUEUED", conclusion: null, completedAt: null }),
          check({ kind: "status-context", name: "ci/legacy", status: "SUCCESS", conclusion: "SUCCESS" }),
        ],
      }),
    );
    expect(e).toMatchObject({
      state: "open",
      title: "Add widgets",
      additions: 10,
      deletions: 2,
      isDraft: false,
      hasConflicts: true,
      isBehind: true,
    });
    expect(e.ciChecks?.map((c) => [c.name, c.status])).toEqual([
      ["lint", "running"],
      ["unit", "failed"],
      ["docs", "skipped"],
      ["queued", "pending"],
      ["ci/legacy", "passed"],
    ]);
    expect(e.ciChecks?.[1]).toMatchObject({
      conclusion: "FAILURE",
      url: "https://ci.example/1",
      startedAt: "2026-04-01T12:00:00.000Z",
    });
  });
});
