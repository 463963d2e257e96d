import { parse } from "graphql";
import { describe, expect, it } from "vitest";
import { detectionDocument, enrichmentQuery, reviewThreadsQuery } from "../../../bench/core/ao-queries.js";
import { GH_223_CAPTURES } from "../../../bench/replay/gh-2.23-requests.generated.js";
import { computeQueryCost, loadGitHubSchema, validateGitHubDocument } from "../../../github/index.js";

const schema = loadGitHubSchema();
const cost = (query: string, variables: Record<string, unknown> = {}) =>
  computeQueryCost({ schema, document: parse(query), variables }).cost;

describe("AO's lifecycle queries", () => {
  it("enrich 25 PRs for 1 point, as AO's notes say, and validate against GitHub's schema", () => {
    const { query, aliases } = enrichmentQuery(
      "acme",
      "widgets",
      Array.from({ length: 25 }, (_, i) => ({ number: i + 1 })),
    );
    expect(aliases).toHaveLength(25);
    expect(validateGitHubDocument(schema, parse(query))).toEqual([]);
    expect(cost(query)).toBe(1);
  });

  it("ask for review threads and reviews for 1 point", () => {
    const query = reviewThreadsQuery("acme", "widgets", 7);
    expect(validateGitHubDocument(schema, parse(query))).toEqual([]);
    expect(cost(query)).toBe(1);
  });

  it("detect a branch's PR with gh 2.23's PullRequestList and AO's --json fields", () => {
    const captured = GH_223_CAPTURES.pr_list_json?.[0]?.query ?? "";
    const doc = detectionDocument(captured);
    expect(doc).toContain("fragment pr on PullRequest{number,url,title,headRefName,baseRefName,isDraft}");
    expect(doc.replace(/fragment pr on PullRequest\{[^}]*\}/, "")).toBe(
      captured.replace(/fragment pr on PullRequest\{[^}]*\}/, ""),
    );
  });
});
