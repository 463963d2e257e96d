/**
 * Static repository information (graphql-analysis.ts STATIC_REPOSITORY_FIELDS): a query of nothing
 * but a repository's settings is kept as long as immutable facts (classify.ts), because only a
 * write changes it; anything that moves with ordinary work (a push, a PR, CI) is not.
 */
import { describe, expect, it } from "vitest";
import { GH_223_CAPTURES } from "../../../../bench/replay/gh-2.23-requests.generated.js";
import { analyzeGraphQL } from "../../../../broker/cache/core/graphql-analysis.js";
import { GraphQLAnalyzer } from "../../../../broker/cache/graphql-analyzer.js";
import { classifyRequest, type FreshnessPolicy } from "../../../../broker/pipeline/classify.js";
import { loadGitHubSchema } from "../../../../github/index.js";

const schema = loadGitHubSchema();
const policy: FreshnessPolicy = {
  restFreshMs: 10_000,
  guardedFreshMs: 20_000,
  graphqlFreshMs: { checks: 10_000, pullRequest: 15_000, issue: 30_000, other: 15_000 },
};

const repositoryInfo = GH_223_CAPTURES.git_pr_create_head?.find((r) => r.operationName === "RepositoryInfo");
const repositoryInfoQuery = repositoryInfo?.query;
if (!repositoryInfoQuery) throw new Error("the capture has no RepositoryInfo query");
const vars = { owner: "o", name: "r" };

function analysis(query: string, variables: Record<string, unknown> = vars) {
  const a = analyzeGraphQL({ schema, query, variables });
  if ("error" in a) throw new Error(a.message);
  return a;
}

describe("static repository information", () => {
  describe("when a query reads a repository's settings only", () => {
    it.each([
      { name: "gh 2.23's RepositoryInfo (every gh pr create)", query: repositoryInfoQuery },
      {
        name: "the default branch's name and what merges allow",
        query:
          "query($owner:String!,$name:String!){repository(owner:$owner,name:$name){id defaultBranchRef{name} squashMergeAllowed}}",
      },
    ])("is static: $name", ({ query }) => {
      expect(analysis(query).staticRepository).toBe(true);
    });

    it("is kept as long as immutable facts, moved by the repository's writes (repo:)", () => {
      const c = classifyRequest(
        {
          method: "POST",
          path: "/graphql",
          headers: {},
          graphql: { query: repositoryInfoQuery, variables: vars, operationName: "RepositoryInfo" },
        },
        new GraphQLAnalyzer({ schema }),
        policy,
      );
      expect(c.freshMs).toBe(300_000);
      expect(c.reads).toEqual(["repo:o/r"]);
    });
  });

  describe("when a query reads anything that moves with ordinary work", () => {
    it.each([
      {
        name: "the default branch's head commit",
        query:
          "query($owner:String!,$name:String!){repository(owner:$owner,name:$name){defaultBranchRef{name target{oid}}}}",
      },
      {
        name: "the time of the last push",
        query: "query($owner:String!,$name:String!){repository(owner:$owner,name:$name){id pushedAt}}",
      },
      {
        name: "a PR list",
        query:
          "query($owner:String!,$name:String!){repository(owner:$owner,name:$name){id pullRequests(first:5){nodes{id}}}}",
      },
      {
        name: "a PR by number",
        query:
          "query($owner:String!,$name:String!){repository(owner:$owner,name:$name){id pullRequest(number:1){id}}}",
      },
      {
        name: "another root field beside the repository",
        query: "query($owner:String!,$name:String!){repository(owner:$owner,name:$name){id} viewer{login}}",
      },
    ])("is not static: $name", ({ query }) => {
      expect(analysis(query).staticRepository).toBe(false);
    });

    it("is not static without a repository it can name (no repo: tag to move it)", () => {
      expect(analysis('query($n:String!){repository(owner:"o",name:$n){id}}', {}).staticRepository).toBe(
        false,
      );
    });

    it("keeps plain freshness when not static", () => {
      const c = classifyRequest(
        {
          method: "POST",
          path: "/graphql",
          headers: {},
          graphql: {
            query: "query($owner:String!,$name:String!){repository(owner:$owner,name:$name){id pushedAt}}",
            variables: vars,
          },
        },
        new GraphQLAnalyzer({ schema }),
        policy,
      );
      expect(c.freshMs).toBe(15_000);
    });
  });
});
