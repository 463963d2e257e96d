import { describe, expect, it } from "vitest";
import { vouchableTags } from "../../../../broker/cache/core/resource-tags.js";

describe("vouchableTags", () => {
  it.each([
    {
      name: "a PR read by number",
      reads: ["repo:acme/widgets", "num:acme/widgets#2"],
      expected: ["num:acme/widgets#2"],
    },
    { name: "a node(id:) read", reads: ["node:PR_kw1"], expected: ["node:PR_kw1"] },
    {
      name: "two PRs",
      reads: ["num:acme/widgets#1", "num:acme/widgets#2"],
      expected: ["num:acme/widgets#1", "num:acme/widgets#2"],
    },
  ])("covers the PR and node tags of $name", ({ reads, expected }) => {
    expect(vouchableTags(reads)).toEqual(expected);
  });

  it.each([
    { name: "a list (any PR's change moves it)", reads: ["repo:acme/widgets", "list:acme/widgets"] },
    { name: "Actions data (no PR guard watches it)", reads: ["num:acme/widgets#2", "actions:acme/widgets"] },
    { name: "repository data alone", reads: ["repo:acme/widgets"] },
    { name: "no tags at all", reads: [] },
  ])("refuses $name", ({ reads }) => {
    expect(vouchableTags(reads)).toBeUndefined();
  });
});
