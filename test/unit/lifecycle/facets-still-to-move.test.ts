/**
 * facetsStillToMove (lifecycle/core/changed-facets.ts): once the lifecycle's own enrichment has
 * read a PR after its guards moved, only the facets that really moved (or that the enrichment
 * cannot judge) are invalidated, so agents' answers are refreshed once, and not at all when the
 * move is already what they hold. One rule per case.
 */
import { describe, expect, it } from "vitest";
import { ALL_FACETS, changedFacets, facetsStillToMove } from "../../../lifecycle/core/changed-facets.js";
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

  describe("the comment count (totalCommentsCount, decision 0027)", () => {
    const signalled = ALL_FACETS.filter((f) => f !== "checks");
    const counted = { ...running, totalCommentsCount: 3 };

    it("updatedAt moved with the count unchanged: a PR-list signal's comments guess is dropped", () => {
      const renamed = { ...counted, title: "Renamed", updatedAt: T0 + 1_000 };
      const still = facetsStillToMove({ before: counted, fetched: renamed, signalled });
      expect(still).toEqual(["core", "updated", "reviews", "threads"]);
      // A review the PR list saw: its reviews move, the conversation stays.
      const reviewed = {
        ...counted,
        reviewDecision: "APPROVED",
        reviews: [{ author: "r", state: "APPROVED", submittedAt: T0 + 1_000 }],
        updatedAt: T0 + 1_000,
      };
      expect(facetsStillToMove({ before: counted, fetched: reviewed, signalled })).not.toContain("comments");
    });

    it("the count unchanged still moves comments where an edit may hide: a comments signal, or a move nothing kept explains", () => {
      const later = { ...counted, updatedAt: T0 + 1_000 };
      // issue_comment (edited): comments without core.
      expect(
        facetsStillToMove({ before: counted, fetched: later, signalled: ["comments", "updated"] }),
      ).toContain("comments");
      // Nothing the lifecycle keeps moved: a body, a label or a comment's edit; all of them go.
      expect(facetsStillToMove({ before: counted, fetched: later, signalled })).toContain("comments");
      // An explained move (a new title) with the count held is what drops them.
      const renamed = { ...counted, title: "Renamed", updatedAt: T0 + 1_000 };
      expect(facetsStillToMove({ before: counted, fetched: renamed, signalled })).not.toContain("comments");
    });

    it("a changed count moves comments, even when no signal named them and something else explains updatedAt", () => {
      const commented = { ...counted, title: "Renamed", totalCommentsCount: 4, updatedAt: T0 + 1_000 };
      expect(changedFacets(counted, commented)).toContain("comments");
      expect(facetsStillToMove({ before: counted, fetched: commented, signalled: ["checks"] })).toContain(
        "comments",
      );
      expect(facetsStillToMove({ before: counted, fetched: commented, signalled })).toContain("comments");
    });

    it("a count not known on either side (facts stored before it was asked, a webhook's): comments go as before", () => {
      const renamed = { ...running, title: "Renamed", updatedAt: T0 + 1_000, totalCommentsCount: 3 };
      expect(facetsStillToMove({ before: running, fetched: renamed, signalled })).toContain("comments");
      // …and a count that is known on both sides and held is what drops them.
      expect(
        facetsStillToMove({ before: { ...running, totalCommentsCount: 3 }, fetched: renamed, signalled }),
      ).not.toContain("comments");
    });
  });

  it("a new base moves the head: gh pr diff, commits and files follow it (decision 0027)", () => {
    const rebased = { ...running, baseRefName: "develop", updatedAt: T0 + 1_000 };
    expect(changedFacets(running, rebased)).toContain("head");
    expect(facetsStillToMove({ before: running, fetched: rebased, signalled: ["checks"] })).toContain("head");
  });
});
