import { describe, expect, it } from "vitest";
import { DEFAULT_SCENARIO } from "../../../github-sim/core/default-scenario.js";
import { loadScenario } from "../../../github-sim/core/load-scenario.js";
import { parseScenario } from "../../../github-sim/core/scenario-schema.js";
import { searchIssues } from "../../../github-sim/core/search-query.js";

const parsed = parseScenario(DEFAULT_SCENARIO);
if (!parsed.ok) throw new Error(parsed.message);
const { world } = loadScenario(parsed.value, { now: () => 0 });
const numbers = (q: string) => searchIssues(world, q).map((r) => r.item.number);

describe("searchIssues", () => {
  it.each([
    {
      name: "gh pr list --search 'is:open author:@me'",
      q: "is:open author:@me repo:acme/widgets state:open type:pr",
      want: [1],
    },
    {
      name: "gh pr list --label documentation",
      q: "label:documentation repo:acme/widgets state:open type:pr",
      want: [2],
    },
    {
      name: "gh pr status review-requested",
      q: "repo:acme/widgets state:open review-requested:monalisa",
      want: [1],
    },
    { name: "issues by label", q: "repo:acme/widgets is:issue label:enhancement", want: [12] },
    { name: "free text", q: "repo:acme/widgets Safari", want: [10] },
    { name: "negated qualifier", q: "repo:acme/widgets is:pr -author:octocat", want: [3, 2] },
    { name: "another repo", q: "repo:acme/other is:pr", want: [] },
  ])("finds $name", ({ q, want }) => {
    expect(numbers(q)).toEqual(want);
  });
});
