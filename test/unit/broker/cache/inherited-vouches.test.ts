/**
 * A node id learned after its object's vouch inherits it (core/facets.ts inheritedVouches): the
 * lifecycle re-sends a PR's vouch only when its time advances, so the rule that a vouch covers only
 * the ids known when it was written left gh's StatusChecks answer (read by node id, learned from a
 * lookup answered after the vouch) unvouched for as long as the PR's guards stayed quiet.
 */
import { describe, expect, it } from "vitest";
import { inheritedVouches, vouchGroups } from "../../../../broker/cache/core/facets.js";

describe("vouches a newly learned node id inherits", () => {
  it("a PR's or issue's id takes its object's vouch and its repository's issues-list vouch", () => {
    const pairs = inheritedVouches(new Map([["PR_1", "num:acme/widgets#1"]]));
    expect(pairs).toEqual([
      ["num:acme/widgets#1", "node:PR_1"],
      ["issues:acme/widgets", "nodei:PR_1"],
    ]);
    // Exactly the keys a read by node id is vouched by: checks only by the PR's own vouch.
    const checks = vouchGroups(["node:PR_1:checks"]) ?? [];
    expect(checks).toEqual([["node:PR_1"]]);
    expect(pairs.map(([, to]) => to)).toEqual(expect.arrayContaining(checks.flat()));
    const comments = vouchGroups(["node:PR_1:comments"]) ?? [];
    expect(pairs.map(([, to]) => to).sort()).toEqual([...comments.flat()].sort());
  });

  it("a repository's id inherits nothing (no vouch covers repository node facets)", () => {
    expect(inheritedVouches(new Map([["R_1", "repo:acme/widgets"]]))).toEqual([]);
    expect(inheritedVouches(new Map())).toEqual([]);
  });
});
