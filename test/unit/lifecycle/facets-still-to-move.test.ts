/**
 * facetsStillToMove (lifecycle/core/changed-facets.ts): once the lifecycle's own enrichment has
 * read a PR after its guards moved, only the facets that really moved (or that the enrichment
 * cannot judge) are invalidated, so agents' answers are refreshed once, and not at all when the
 * move is already what they hold. One rule per case.
 */
import { describe, expect, it } from "vitest";
import { ALL_FACETS, facetsStillToMove } from "../../../lifecycle/core/changed-facets.js";
import { check, facts, T0 } from "./support/facts.js";

const running = facts({
  rollupState: "PENDING",
  mergeStateStatus: "BLOCKED",
  checks: [check({ status: "IN_PROGRESS", conclusion: null, completedAt: null })],
});

describe("facetsStillToMove", () => {
  it("not fetched this cycle: every signalled facet, as the signal said", () => {
    expect(facetsStillToMove({ before: running, fetched: undefined, signalled: ["checks"] })).toEqual([
      "checks",
    ]);
  });

  it("no facts from before: every facet", () => {
    expect(facetsStillToMove({ before: null, fetched: facts(), signalled: ["checks"] })).toEqual([
      ...ALL_FACETS,
    ]);
  });

  it("a checks signal the enrichment confirms: checks and the merge state it moved, nothing else", () => {
    const done = facts({ observedAt: T0 + 5_000 });
    expect(facetsStillToMove({ before: running, fetched: done, signalled: ["checks"] })).toEqual([
      "checks",
      "merge",
    ]);
  });

  it("a checks signal whose checks the enrichment shows unchanged: nothing (a refresh would fetch the same)", () => {
    const same = { ...running, observedAt: T0 + 5_000 };
    expect(facetsStillToMove({ before: running, fetched: same, signalled: ["checks"] })).toEqual([]);
  });

  it("checks cut at the page size cannot be judged: a checks signal keeps checks", () => {
    const cut = { ...running, checksTotal: 80 };
    expect(facetsStillToMove({ before: cut, fetched: cut, signalled: ["checks"] })).toEqual(["checks"]);
  });

  it("a PR-list signal with updatedAt unmoved since the cycle began: nothing (already invalidated when it moved)", () => {
    const signalled = ALL_FACETS.filter((f) => f !== "checks");
    expect(facetsStillToMove({ before: running, fetched: running, signalled })).toEqual([]);
  });

  it("a PR-list signal with a new title: what moved, plus what updatedAt may hide (body, labels, reviews, comments, review comments)", () => {
    const signalled = ALL_FACETS.filter((f) => f !== "checks");
    const renamed = { ...running, title: "Renamed", updatedAt: T0 + 1_000 };
    const still = facetsStillToMove({ before: running, fetched: renamed, signalled });
    expect(still).toEqual(["core", "updated", "reviews", "comments", "threads"]);
    expect(still).not.toContain("checks");
    expect(still).not.toContain("head");
    expect(still).not.toContain("merge");
  });

  it("a review-comments signal keeps threads even when updatedAt did not move (edits need not move it)", () => {
    expect(
      facetsStillToMove({ before: running, fetched: running, signalled: ["threads", "updated"] }),
    ).toEqual(["threads"]);
  });

  it("what the enrichment saw move is invalidated even when no signal named it", () => {
    const merged = { ...running, state: "MERGED" as const, updatedAt: T0 + 1_000 };
    const still = facetsStillToMove({ before: running, fetched: merged, signalled: ["checks"] });
    expect(still).toContain("state");
    expect(still).toContain("updated");
    expect(still).not.toContain("checks");
  });
});
