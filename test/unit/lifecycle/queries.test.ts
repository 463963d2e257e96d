import { parse } from "graphql";
import { describe, expect, it } from "vitest";
import { computeQueryCost, loadGitHubSchema, validateGitHubDocument } from "../../../github/index.js";
import { buildDetectionQuery, parseDetectionAnswer } from "../../../lifecycle/core/detection-query.js";
import {
  buildEnrichmentQuery,
  enrichmentPoints,
  parseEnrichmentAnswer,
  parseRateLimit,
} from "../../../lifecycle/core/enrichment-query.js";

const schema = loadGitHubSchema();
const prs = (n: number, repos = ["acme/widgets"]) =>
  Array.from({ length: n }, (_, i) => ({ repo: repos[i % repos.length] as string, number: i + 1 }));
const costOf = (query: string) => computeQueryCost({ schema, document: parse(query) });

describe("lifecycle GraphQL queries", () => {
  describe("when building the enrichment query", () => {
    it.each([1, 25, 37, 38, 50])("%i PRs in three repositories validate against GitHub's schema", (n) => {
      const { query } = buildEnrichmentQuery(prs(n, ["acme/widgets", "acme/gadgets", "other/repo"]));
      expect(validateGitHubDocument(schema, parse(query))).toEqual([]);
      expect(costOf(query).errors).toEqual([]);
    });

    it.each([
      { n: 1, points: 1 },
      { n: 25, points: 1 },
      { n: 37, points: 1 },
      { n: 38, points: 2 },
      { n: 50, points: 2 },
    ])("$n PRs cost $points point(s), as enrichmentPoints predicts", ({ n, points }) => {
      expect(costOf(buildEnrichmentQuery(prs(n)).query).cost).toBe(points);
      expect(enrichmentPoints(n)).toBe(points);
    });

    it("asks the fields AO's enrichSessionsPRBatch asks, and rateLimit", () => {
      const { query } = buildEnrichmentQuery(prs(1));
      for (const field of [
        "title",
        "state",
        "additions",
        "deletions",
        "isDraft",
        "mergeable",
        "mergeStateStatus",
        "reviewDecision",
        "headRefName",
        "headRefOid",
        "statusCheckRollup",
        "contexts(first:",
        "... on CheckRun { name status conclusion detailsUrl startedAt completedAt checkSuite { app { slug } } }",
        "... on StatusContext { context state targetUrl",
        "reviewThreads(last:",
        "reviews(last: 5)",
        // Not AO's: lets an updatedAt move say whether a comment came or went (decision 0027).
        "totalCommentsCount",
        "rateLimit { cost remaining",
      ]) {
        expect(query).toContain(field);
      }
    });

    it("refuses a repository that is not owner/name (nothing unvalidated is inlined)", () => {
      expect(() => buildEnrichmentQuery([{ repo: 'a/b") { x } #', number: 1 }])).toThrow(TypeError);
    });
  });

  describe("when parsing an enrichment answer", () => {
    it("says every check run is GitHub Actions' only when each names its app", () => {
      const built = buildEnrichmentQuery([{ repo: "acme/widgets", number: 1 }]);
      const answer = (runs: unknown[]) => ({
        r0: {
          p1: {
            number: 1,
            state: "OPEN",
            headRefOid: "abc",
            updatedAt: "2026-04-01T12:00:00Z",
            commits: {
              nodes: [
                {
                  commit: {
                    statusCheckRollup: {
                      state: "PENDING",
                      contexts: { totalCount: runs.length, nodes: runs },
                    },
                  },
                },
              ],
            },
          },
        },
      });
      const run = (name: string, slug?: string) => ({
        __typename: "CheckRun",
        name,
        status: "IN_PROGRESS",
        ...(slug ? { checkSuite: { app: { slug } } } : {}),
      });
      const allActions = (runs: unknown[]) =>
        parseEnrichmentAnswer(answer(runs), built, 1)[0]?.facts?.checksAllActions;
      expect(allActions([run("build", "github-actions"), run("test", "github-actions")])).toBe(true);
      expect(allActions([run("build", "github-actions"), run("deploy", "vercel")])).toBe(false);
      expect(allActions([run("build", "github-actions"), run("test")])).toBeUndefined();
      expect(allActions([])).toBe(true);
    });

    it("maps each alias back to its PR and skips missing or malformed nodes", () => {
      const built = buildEnrichmentQuery([
        { repo: "acme/widgets", number: 1 },
        { repo: "acme/widgets", number: 2 },
        { repo: "other/repo", number: 3 },
      ]);
      const data = {
        rateLimit: { cost: 1, remaining: 4990, limit: 5000, resetAt: "2026-04-01T13:00:00Z" },
        r0: {
          p1: {
            number: 1,
            state: "OPEN",
            headRefOid: "abc",
            updatedAt: "2026-04-01T12:00:00Z",
            title: "one",
            mergeable: "MERGEABLE",
            totalCommentsCount: 4,
            commits: {
              nodes: [
                {
                  commit: {
                    statusCheckRollup: {
                      state: "FAILURE",
                      contexts: {
                        totalCount: 2,
                        nodes: [
                          {
                            __typename: "CheckRun",
                            name: "build",
                            status: "COMPLETED",
                            conclusion: "FAILURE",
                            startedAt: "2026-04-01T12:00:00Z",
                          },
                          {
                            __typename: "StatusContext",
                            context: "ci/x",
                            state: "SUCCESS",
                            createdAt: "2026-04-01T12:01:00Z",
                          },
                        ],
                      },
                    },
                  },
                },
              ],
            },
            reviewThreads: {
              nodes: [
                { id: "t1", isResolved: false },
                { id: "t2", isResolved: true },
              ],
            },
          },
          p2: null,
        },
        r1: { p3: { number: 3, state: "WHATEVER" } },
      };
      const results = parseEnrichmentAnswer(data, built, 123);
      expect(results.map((r) => r.facts?.number)).toEqual([1, undefined, undefined]);
      expect(results[0]?.facts).toMatchObject({
        repo: "acme/widgets",
        rollupState: "FAILURE",
        checksTotal: 2,
        unresolvedThreadIds: ["t1"],
        totalCommentsCount: 4,
        observedAt: 123,
        updatedAt: Date.parse("2026-04-01T12:00:00Z"),
      });
      expect(results[0]?.facts?.checks.map((c) => [c.kind, c.name, c.conclusion])).toEqual([
        ["check-run", "build", "FAILURE"],
        ["status-context", "ci/x", "SUCCESS"],
      ]);
      expect(parseRateLimit(data)).toEqual({
        cost: 1,
        remaining: 4990,
        limit: 5000,
        resetAt: Date.parse("2026-04-01T13:00:00Z"),
      });
    });
  });

  describe("when an enrichment answer has no comment count", () => {
    it("leaves totalCommentsCount out (not known), so no comment move is judged from it", () => {
      const built = buildEnrichmentQuery([{ repo: "acme/widgets", number: 1 }]);
      const node = { number: 1, state: "OPEN", headRefOid: "abc", updatedAt: "2026-04-01T12:00:00Z" };
      const [without] = parseEnrichmentAnswer({ r0: { p1: node } }, built, 1);
      expect(without?.facts).toBeDefined();
      expect(without?.facts && "totalCommentsCount" in without.facts).toBe(false);
      const [zero] = parseEnrichmentAnswer({ r0: { p1: { ...node, totalCommentsCount: 0 } } }, built, 1);
      expect(zero?.facts?.totalCommentsCount).toBe(0);
    });
  });

  describe("when building the detection query", () => {
    it("asks many branches of one repository in one query at 1 point for up to 100 branches", () => {
      const targets = Array.from({ length: 100 }, (_, i) => ({
        repo: "acme/widgets",
        branch: `feat/x-${i}`,
      }));
      const { query } = buildDetectionQuery(targets);
      expect(validateGitHubDocument(schema, parse(query))).toEqual([]);
      expect(costOf(query).cost).toBe(1);
      expect(query.match(/pullRequests\(headRefName:/g)).toHaveLength(100);
      expect(query).toContain(
        "states: [OPEN, MERGED, CLOSED], orderBy: {field: CREATED_AT, direction: DESC}",
      );
    });

    it("escapes branch names as GraphQL strings", () => {
      const { query } = buildDetectionQuery([{ repo: "acme/widgets", branch: 'we"ird\\branch' }]);
      expect(validateGitHubDocument(schema, parse(query))).toEqual([]);
    });

    it("tells no PR (null) from an unusable answer (undefined)", () => {
      const built = buildDetectionQuery([
        { repo: "acme/widgets", branch: "a" },
        { repo: "acme/widgets", branch: "b" },
        { repo: "acme/widgets", branch: "c" },
      ]);
      const results = parseDetectionAnswer(
        {
          r0: {
            b0: { nodes: [{ number: 4, state: "OPEN", headRefOid: "x", updatedAt: "2026-04-01T00:00:00Z" }] },
            b1: { nodes: [] },
            b2: null,
          },
        },
        built,
      );
      expect(results.map((r) => r.pr)).toEqual([
        { number: 4, state: "OPEN", headSha: "x", updatedAt: Date.parse("2026-04-01T00:00:00Z") },
        null,
        undefined,
      ]);
    });
  });
});

describe("rateLimit selection", () => {
  it("is left out when the budget port answers (rateLimit: false), so the query may be merged", async () => {
    const { buildEnrichmentQuery: enrich } = await import("../../../lifecycle/core/enrichment-query.js");
    const { buildDetectionQuery: detect } = await import("../../../lifecycle/core/detection-query.js");
    const pr = [{ repo: "acme/widgets", number: 1 }];
    const branch = [{ repo: "acme/widgets", branch: "feat/x" }];
    expect(enrich(pr).query).toContain("rateLimit");
    expect(detect(branch).query).toContain("rateLimit");
    expect(enrich(pr, { rateLimit: false }).query).not.toContain("rateLimit");
    expect(detect(branch, { rateLimit: false }).query).not.toContain("rateLimit");
    expect(enrich(pr, { rateLimit: false }).query).toContain("p1: pullRequest(number: 1)");
  });
});
