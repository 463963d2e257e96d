/**
 * One test per facet rule (docs/caching.md): a write or a signal invalidates exactly the cached
 * answers it must and no others. The answers are gh 2.23's exact requests (bench/replay's capture
 * of test/fixtures/gh-2.23-traffic), analysed as the broker analyses them; a change's tags are
 * resolved as the broker resolves them, with the ids and branches gh's earlier answers revealed.
 */
import { describe, expect, it } from "vitest";
import { fillPath, fillValue, type JsonValue } from "../../../../bench/core/capture-template.js";
import { GH_223_CAPTURES } from "../../../../bench/replay/gh-2.23-requests.generated.js";
import {
  checksMovedTags,
  closeFacets,
  createdTags,
  objectChangeTags,
  runsMovedTags,
  shaChecksTag,
  type Tag,
  vouchGroups,
  vouchObjects,
} from "../../../../broker/cache/core/facets.js";
import { analyzeGraphQL, learnIds } from "../../../../broker/cache/core/graphql-analysis.js";
import { type Aliases, aliasesNeeded, resolveWrite } from "../../../../broker/cache/core/resolve-write.js";
import {
  restReadTags,
  restWriteEffect,
  type WriteEffect,
} from "../../../../broker/cache/core/rest-facets.js";
import { GraphQLAnalyzer } from "../../../../broker/cache/graphql-analyzer.js";
import { buildApiRequest } from "../../../../broker/pipeline/api-request.js";
import {
  type ClassifyInput,
  classifyRequest,
  type FreshnessPolicy,
} from "../../../../broker/pipeline/classify.js";
import { loadGitHubSchema } from "../../../../github/index.js";

const schema = loadGitHubSchema();
const SHA5 = "a".repeat(40);
const pr5 = {
  owner: "o",
  repo: "r",
  pr: 5,
  issue: 7,
  branch: "feature",
  base: "main",
  prNodeId: "PR_5",
  issueNodeId: "IS_7",
  repoNodeId: "R_1",
  runId: 1001,
  jobId: 2001,
  workflowId: 42,
  title: "t",
  body: "b",
};
const pr6 = { ...pr5, pr: 6, branch: "other", prNodeId: "PR_6", runId: 1002, jobId: 2002 };
const SHA6 = "b".repeat(40);

// What gh's earlier answers taught the cache (learnIds on answers of the same shapes).
const learned = [
  learnIds(
    { repository: { id: "R_1", pullRequest: { id: "PR_5", number: 5, headRefName: "feature" } } },
    {
      owner: "o",
      name: "r",
    },
  ),
  learnIds(
    { repository: { pullRequest: { id: "PR_6", number: 6, headRefName: "other" } } },
    { owner: "o", name: "r" },
  ),
  learnIds({ repository: { issue: { id: "IS_7", number: 7 } } }, { owner: "o", name: "r" }),
];
const idObjects = new Map<string, string>();
const objectBranch = new Map<string, string>();
for (const l of learned) {
  for (const [id, o] of l.ids) idObjects.set(id, o);
  for (const [o, b] of l.branches) objectBranch.set(o, b);
}
const objectIds = new Map<string, string[]>();
for (const [id, o] of idObjects) objectIds.set(o, [...(objectIds.get(o) ?? []), id]);
const branchObjects = new Map<Tag, string[]>();
for (const [o, b] of objectBranch) branchObjects.set(`branch:o/r:${b}`, [o]);
const aliases: Aliases = { idObjects, objectIds, objectBranch, branchObjects };

function readsOf(command: string, index: number, bindings: Record<string, string | number>): Tag[] {
  const captured = GH_223_CAPTURES[command]?.[index];
  if (!captured) throw new Error(`no capture ${command}#${index}`);
  if (captured.path === "/graphql") {
    const analysis = analyzeGraphQL({
      schema,
      query: captured.query as string,
      variables: fillValue(captured.variables as JsonValue, bindings) as Record<string, unknown>,
      operationName: captured.operationName,
    });
    if ("error" in analysis) throw new Error(analysis.message);
    return [...analysis.reads];
  }
  // As classify.ts reads it: the Accept header picks the representation (a diff reads less).
  return restReadTags(fillPath(captured.path, bindings), captured.headers?.accept);
}

function effectOf(command: string, index: number, bindings: Record<string, string | number>): WriteEffect {
  const captured = GH_223_CAPTURES[command]?.[index];
  if (!captured) throw new Error(`no capture ${command}#${index}`);
  if (captured.path !== "/graphql")
    return restWriteEffect(captured.method, fillPath(captured.path, bindings));
  const analysis = analyzeGraphQL({
    schema,
    query: captured.query as string,
    variables: fillValue(captured.variables as JsonValue, bindings) as Record<string, unknown>,
    operationName: captured.operationName,
  });
  if ("error" in analysis) throw new Error(analysis.message);
  return analysis.writeEffect;
}

/** Cached answers of several sessions: PR 5's and PR 6's sessions, an issue reader, Actions. */
const ANSWERS: Record<string, Tag[]> = {
  "pr checks 5: PullRequestByNumber {number,headRefName,id}": readsOf("pr_checks", 0, pr5),
  "pr checks 5: PullRequestStatusChecks": readsOf("pr_checks", 1, pr5),
  "pr checks 6: PullRequestStatusChecks": readsOf("pr_checks", 1, pr6),
  "pr view 5": readsOf("pr_view", 0, pr5),
  "pr view 6": readsOf("pr_view", 0, pr6),
  "pr view 5 --json reviews": readsOf("pr_view_json_reviews", 0, pr5),
  "pr view 5 --json checks": readsOf("pr_view_json_checks", 0, pr5),
  "pr list": readsOf("pr_list", 0, pr5),
  "branch lookup feature": readsOf("git_pr_create_head", 1, pr5),
  "branch lookup other": readsOf("git_pr_create_head", 1, pr6),
  "repository info": readsOf("git_pr_create_head", 0, pr5),
  "issue view 7 --comments: CommentsForIssue": readsOf("issue_view_comments", 1, pr5),
  "issue view 7": readsOf("issue_view", 0, pr5),
  "GET pulls/5": readsOf("api_rest", 0, pr5),
  "pr diff 5": readsOf("pr_diff", 0, pr5),
  "GET pulls/6": readsOf("api_rest", 0, pr6),
  "run jobs": readsOf("run_watch", 5, pr5),
  "workflow definition": readsOf("run_watch", 1, pr5),
  "finished run log": readsOf("run_view_log_failed", 3, pr5),
  "check-runs of 5's head": restReadTags(`/repos/o/r/commits/${SHA5}/check-runs?filter=latest&per_page=100`),
  "status of 6's head": restReadTags(`/repos/o/r/commits/${SHA6}/status`),
  "run list --branch feature": readsOf("run_list_branch", 0, pr5),
  "run list --branch other": readsOf("run_list_branch", 0, pr6),
  "workflow list": readsOf("run_list_branch", 1, pr5),
  "run view 1001": readsOf("run_watch", 0, pr5),
  "run view 1002": readsOf("run_watch", 0, pr6),
  "run jobs 1002": readsOf("run_watch", 5, pr6),
  "job annotations": readsOf("run_watch", 6, pr5),
  "run artifacts list": restReadTags("/repos/o/r/actions/artifacts"),
};

function dead(tags: readonly Tag[]): string[] {
  const moved = new Set(tags);
  return Object.entries(ANSWERS)
    .filter(([, reads]) => reads.some((t) => moved.has(t)))
    .map(([name]) => name)
    .sort();
}

function written(effect: WriteEffect): Tag[] {
  // The broker fetches exactly what aliasesNeeded names; the test's table holds all of it.
  aliasesNeeded(effect);
  return resolveWrite(effect, aliases);
}

describe("facet rules: each change invalidates exactly the answers that read what it moved", () => {
  it("every answer of the table reads something (or is immutable on purpose)", () => {
    const empty = Object.entries(ANSWERS)
      .filter(([, reads]) => reads.length === 0)
      .map(([n]) => n);
    expect(empty.sort()).toEqual(["finished run log", "workflow definition"]);
  });

  it("gh pr create (GraphQL, by repositoryId) → the PR lists and the new branch's lookup only", () => {
    const effect = effectOf("git_pr_create_head", 2, { ...pr5, branch: "newbranch" });
    expect(effect.createdIn?.branch).toBe("newbranch");
    expect(dead(written(effect))).toEqual(["pr list"]);
  });

  it("gh pr create on a branch someone looked up → that branch's lookup and the lists", () => {
    expect(dead(written(effectOf("git_pr_create_head", 2, pr5)))).toEqual([
      "branch lookup feature",
      "pr list",
    ]);
  });

  it("REST POST pulls (no branch known) → the lists and every branch lookup, no PR's own answers", () => {
    expect(dead(written(restWriteEffect("POST", "/repos/o/r/pulls")))).toEqual([
      "branch lookup feature",
      "branch lookup other",
      "pr list",
    ]);
  });

  it("a check-runs move on 5's head → only answers that read 5's checks or mergeability (and Actions)", () => {
    const tags = checksMovedTags("o", "r", SHA5, {
      object: "num:o/r#5",
      facets: ["checks"],
      ids: ["PR_5"],
      branch: "feature",
    });
    expect(dead(tags)).toEqual(
      [
        "GET pulls/5",
        "check-runs of 5's head",
        "pr checks 5: PullRequestStatusChecks",
        "pr view 5",
        "pr view 5 --json checks",
        // gh's `--json reviews` asks for mergeable and mergeStateStatus too
        "pr view 5 --json reviews",
        "run jobs",
        // Which runs moved is not known here (no Actions guard named them): every Actions answer
        // of the repository but the immutable ones.
        "run jobs 1002",
        "run list --branch feature",
        "run list --branch other",
        "run view 1001",
        "run view 1002",
        "job annotations",
        "run artifacts list",
        "workflow list",
      ].sort(),
    );
  });

  it("the Actions guard saw run 1001 (PR 5's head, branch feature) move → that run, the lists that show it, 5's checks; not run 1002 nor PR 6", () => {
    const moved = [{ id: 1001, headSha: SHA5, branch: "feature" }];
    // As the broker resolves the guard's repository-level target: the runs' tags, the lists' CI
    // facets, and the checks of the PRs learned for the runs' branches.
    const tags = resolveWrite(
      {
        tags: [
          ...runsMovedTags("o", "r", moved),
          ...checksMovedTags("o", "r", undefined, undefined).filter((t) => !t.startsWith("actions:")),
        ],
        objects: [],
        nodeIds: [],
        branches: [{ owner: "o", name: "r", branch: "feature", facets: ["checks"] }],
      },
      aliases,
    );
    expect(dead(tags)).toEqual(
      [
        "GET pulls/5",
        "check-runs of 5's head",
        "job annotations",
        "pr checks 5: PullRequestStatusChecks",
        "pr view 5",
        "pr view 5 --json checks",
        "pr view 5 --json reviews",
        "run jobs",
        "run list --branch feature",
        "run view 1001",
      ].sort(),
    );
  });

  it("a PR's checks moved where the Actions guard watches the runs → its checks and commit checks, no Actions answer", () => {
    const tags = [
      ...objectChangeTags({ object: "num:o/r#6", facets: ["checks"], ids: ["PR_6"], branch: "other" }),
      ...runsMovedTags("o", "r", []),
      shaChecksTag("o", "r", SHA6),
    ];
    expect(dead(tags)).toEqual([
      "GET pulls/6",
      "pr checks 6: PullRequestStatusChecks",
      "pr view 6",
      "status of 6's head",
    ]);
  });

  it("the Actions guard vouches for runs, run lists and jobs; a head's vouch for its commit checks; nothing for other Actions data", () => {
    for (const name of ["run list --branch feature", "job annotations"])
      expect(vouchGroups(ANSWERS[name] ?? []), name).toEqual([["runs:o/r"]]);
    // A run's own answers also need that run's vouch: sent only for the runs on the guard's page
    // (a full page shows no move of an older run).
    for (const name of ["run view 1001", "run jobs"])
      expect(vouchGroups(ANSWERS[name] ?? []), name).toEqual([
        ["runs:o/r"],
        [expect.stringMatching(/^runs:o\/r#\d+$/)],
      ]);
    expect(vouchGroups(ANSWERS["status of 6's head"] ?? [])).toEqual([[`sha:o/r@${SHA6}`]]);
    // Artifacts, caches, the workflow list: the guard's page does not show them move.
    expect(vouchGroups(ANSWERS["run artifacts list"] ?? [])).toBeUndefined();
    expect(vouchGroups(ANSWERS["workflow list"] ?? [])).toBeUndefined();
    // A branch's checks by name follow pushes, which no Actions vouch covers.
    expect(vouchGroups(restReadTags("/repos/o/r/commits/feature/check-runs"))).toBeUndefined();
  });

  it("a branch delete → that branch's PR (state, head), its lookup and the lists; not PR 6", () => {
    const effect = effectOf("pr_merge_squash_delete", 3, pr5);
    expect(dead(written(effect))).toEqual([
      "GET pulls/5",
      "branch lookup feature",
      "pr checks 5: PullRequestStatusChecks",
      "pr diff 5",
      "pr list",
      "pr view 5",
      "pr view 5 --json checks",
      "pr view 5 --json reviews",
    ]);
  });

  it("gh pr merge (by node id) → PR 5's state/head answers, its branch lookup, the lists", () => {
    const effect = effectOf("pr_merge_squash_cached", 1, pr5);
    expect(dead(written(effect))).toEqual([
      "GET pulls/5",
      "branch lookup feature",
      "pr checks 5: PullRequestStatusChecks",
      "pr diff 5",
      "pr list",
      "pr view 5",
      "pr view 5 --json checks",
      "pr view 5 --json reviews",
    ]);
  });

  it("gh pr comment (by node id) → PR 5's answers that show comments or updatedAt; not its checks", () => {
    const effect = effectOf("pr_comment", 1, pr5);
    const gone = dead(written(effect));
    expect(gone).toContain("pr view 5");
    expect(gone).toContain("GET pulls/5");
    for (const kept of [
      "pr checks 5: PullRequestStatusChecks",
      "pr checks 5: PullRequestByNumber {number,headRefName,id}",
      "pr view 6",
      "branch lookup feature",
      "issue view 7 --comments: CommentsForIssue",
    ])
      expect(gone).not.toContain(kept);
  });

  it("a comment on issue 7 (by node id) → issue 7's answers only, among numbered objects", () => {
    const gone = dead(
      written({ tags: [], objects: [], branches: [], nodeIds: [{ id: "IS_7", facets: ["comments"] }] }),
    );
    expect(gone.filter((n) => /pr view|pr checks|pulls\//.test(n))).toEqual([]);
    expect(gone).toContain("issue view 7 --comments: CommentsForIssue");
    expect(gone).toContain("issue view 7");
  });

  it("a node id nobody has seen → its own node answers only", () => {
    expect(
      dead(written({ tags: [], objects: [], branches: [], nodeIds: [{ id: "PR_99", facets: ["core"] }] })),
    ).toEqual([]);
    const answer = readsOf("pr_checks", 1, { ...pr5, prNodeId: "PR_99" });
    const tags = new Set(
      written({ tags: [], objects: [], branches: [], nodeIds: [{ id: "PR_99", facets: ["checks"] }] }),
    );
    expect(answer.some((t) => tags.has(t))).toBe(true);
  });

  it("a review on PR 5 → its reviews, not its checks nor the immutable first query of gh pr checks", () => {
    const gone = dead(written(restWriteEffect("POST", "/repos/o/r/pulls/5/reviews")));
    expect(gone).toContain("pr view 5 --json reviews");
    expect(gone).not.toContain("pr checks 5: PullRequestStatusChecks");
    expect(gone).not.toContain("pr view 6");
  });

  it("immutable facts (number, id, headRefName; workflow definitions; a finished log) survive every motion", () => {
    const all = [
      ...written(effectOf("pr_merge_squash_delete", 3, pr5)),
      ...written(effectOf("pr_merge_squash_cached", 1, pr5)),
      ...written(effectOf("pr_comment", 1, pr5)),
      ...written(effectOf("git_pr_create_head", 2, pr5)),
      ...checksMovedTags("o", "r", SHA5, { object: "num:o/r#5", facets: ["checks"], ids: ["PR_5"] }),
      ...objectChangeTags({ object: "num:o/r#5", facets: ["core", "state", "head", "reviews", "threads"] }),
    ];
    const gone = dead(all);
    for (const kept of [
      "pr checks 5: PullRequestByNumber {number,headRefName,id}",
      "workflow definition",
      "finished run log",
    ])
      expect(gone).not.toContain(kept);
    expect(gone).not.toContain("repository info");
  });

  it("a lifecycle-detected PR (no number) → the lists and that branch's lookup", () => {
    expect(dead(createdTags("o", "r", "pulls", "other"))).toEqual(["branch lookup other", "pr list"]);
  });

  it("mergeability follows head, base, state and checks; updatedAt follows everything but CI", () => {
    expect(closeFacets(["checks"]).sort()).toEqual(["checks", "merge"]);
    expect(closeFacets(["comments"]).sort()).toEqual(["comments", "updated"]);
    expect(closeFacets(["head"]).sort()).toEqual(["head", "merge", "updated"]);
  });

  it("vouches cover PR and node answers, never lists, lookups or Actions", () => {
    expect(vouchObjects(ANSWERS["pr checks 5: PullRequestStatusChecks"] ?? [])).toEqual(["node:PR_5"]);
    expect(vouchObjects(ANSWERS["pr view 5"] ?? [])).toEqual(["num:o/r#5"]);
    expect(vouchObjects(ANSWERS["pr list"] ?? [])).toBeUndefined();
    expect(vouchObjects(ANSWERS["branch lookup feature"] ?? [])).toBeUndefined();
    expect(vouchObjects(ANSWERS["run jobs"] ?? [])).toBeUndefined();
  });

  it("free signals cover: PR guards or the issues list for PR facets, only PR guards for CI, the lists for lists", () => {
    // head by node: the PR's guards, or the issues list's vouch of the learned id; checks: guards only.
    expect(vouchGroups(ANSWERS["pr checks 5: PullRequestStatusChecks"] ?? [])).toEqual([
      ["node:PR_5", "nodei:PR_5"],
      ["node:PR_5"],
    ]);
    // An issue read by node id (no PR guard watches it): the issues-list guard's vouch of its id.
    expect(vouchGroups(ANSWERS["issue view 7 --comments: CommentsForIssue"] ?? [])).toEqual([
      ["node:IS_7", "nodei:IS_7"],
    ]);
    expect(vouchGroups(ANSWERS["issue view 7"] ?? [])).toContainEqual(["num:o/r#7", "issues:o/r"]);
    expect(vouchGroups(ANSWERS["pr view 5"] ?? [])).toContainEqual(["num:o/r#5"]);
    expect(vouchGroups(ANSWERS["branch lookup feature"] ?? [])).toEqual([["pulls:o/r", "issues:o/r"]]);
    expect(vouchGroups(restReadTags("/repos/o/r/issues?state=open"))).toEqual([["issues:o/r"]]);
    // Commit checks and Actions answers have their own signals since the Actions guard (decision 0013).
    expect(vouchGroups(ANSWERS["check-runs of 5's head"] ?? [])).toEqual([[`sha:o/r@${SHA5}`]]);
    expect(vouchGroups(ANSWERS["run jobs"] ?? [])).toEqual([
      ["runs:o/r"],
      [expect.stringMatching(/^runs:o\/r#\d+$/)],
    ]);
  });

  it("agents' REST reads of a PR are also covered by the PR-list guard, but for CI facets; an issue's never", () => {
    const pr = { pullRequests: true };
    // pulls/N/comments and pulls/N/reviews: the PR's guards, the issues list or the PR list.
    expect(vouchGroups(restReadTags("/repos/o/r/pulls/3/comments"), pr)).toEqual([
      ["num:o/r#3", "issues:o/r", "pulls:o/r"],
    ]);
    expect(vouchGroups(restReadTags("/repos/o/r/pulls/3/reviews"), pr)).toEqual([
      ["num:o/r#3", "issues:o/r", "pulls:o/r"],
    ]);
    // pulls/N: its mergeability follows checks and the base, which move no updated_at: PR guards only.
    const pull = vouchGroups(restReadTags("/repos/o/r/pulls/3"), pr);
    expect(pull).toContainEqual(["num:o/r#3", "issues:o/r", "pulls:o/r"]);
    expect(pull).toContainEqual(["num:o/r#3"]);
    // Without knowing the number is a PR, the PR list is no signal for it (issues are not on it).
    expect(vouchGroups(restReadTags("/repos/o/r/issues/3/comments"))).toEqual([["num:o/r#3", "issues:o/r"]]);
    expect(vouchGroups(restReadTags("/repos/o/r/pulls/3/comments"))).toEqual([["num:o/r#3", "issues:o/r"]]);
  });

  it("a comment count (totalCommentsCount, the lifecycle's enrichment asks it) follows comments and review comments, not core", () => {
    const analysis = analyzeGraphQL({
      schema,
      query: 'query { repository(owner: "o", name: "r") { pullRequest(number: 5) { totalCommentsCount } } }',
      variables: {},
    });
    if ("error" in analysis) throw new Error(analysis.message);
    expect([...analysis.reads].sort()).toEqual(["num:o/r#5:comments", "num:o/r#5:threads", "repo:o/r"]);
  });

  describe("gh pr diff (pulls/N asked as a diff or a patch): the PR's head facet only (decision 0027)", () => {
    it("reads only that PR's head facet and static repository information, not what the JSON pulls/N reads", () => {
      expect(ANSWERS["pr diff 5"]).toEqual(["repo:o/r", "num:o/r#5:head"]);
      for (const accept of [
        "application/vnd.github.v3.patch",
        "application/vnd.github.diff",
        "Application/VND.GitHub.v3.Diff; charset=utf-8",
      ])
        expect(restReadTags("/repos/o/r/pulls/5", accept), accept).toEqual(["repo:o/r", "num:o/r#5:head"]);
      // Any other representation (JSON, or a list that may be answered with JSON) reads the PR.
      for (const accept of [
        undefined,
        "",
        "application/vnd.github+json",
        "application/vnd.github.v3.diff, application/json",
      ])
        expect(restReadTags("/repos/o/r/pulls/5", accept)).toEqual(ANSWERS["GET pulls/5"]);
      // Only a PR's diff: an issue has none, a sub-resource keeps its own facets.
      expect(restReadTags("/repos/o/r/issues/7", "application/vnd.github.v3.diff")).toEqual(
        restReadTags("/repos/o/r/issues/7"),
      );
      expect(restReadTags("/repos/o/r/pulls/5/reviews", "application/vnd.github.v3.diff")).toEqual([
        "repo:o/r",
        "num:o/r#5:reviews",
      ]);
    });

    it("the broker classifies the agent's request with its Accept header (buildApiRequest → classifyRequest)", () => {
      const captured = GH_223_CAPTURES.pr_diff?.[0];
      if (!captured) throw new Error("no pr_diff capture");
      const policy: FreshnessPolicy = {
        restFreshMs: 10_000,
        guardedFreshMs: 20_000,
        graphqlFreshMs: { checks: 10_000, pullRequest: 10_000, issue: 10_000, other: 10_000 },
      };
      const classify = (input: ClassifyInput) =>
        classifyRequest(input, new GraphQLAnalyzer({ schema }), policy);
      const request = buildApiRequest(
        {
          method: "GET",
          path: fillPath(captured.path, pr5),
          // As gh sends them: any case.
          headers: { Accept: "application/vnd.github.v3.diff", "User-Agent": "GitHub CLI 2.23.0" },
          caller: { sessionId: "s", readOnly: false, weight: 1 },
          deadlineMs: 10_000,
        },
        classify,
      );
      expect(request.classification.reads).toEqual(["repo:o/r", "num:o/r#5:head"]);
      // The PR-list guard covers a diff too: every head move moves the PR's updated_at.
      expect(request.classification.vouchGroups).toEqual([["num:o/r#5", "issues:o/r", "pulls:o/r"]]);
      const patch = buildApiRequest(
        {
          method: "PATCH",
          path: "/repos/o/r/pulls/5",
          body: Buffer.from(JSON.stringify({ base: "develop" })),
          caller: { sessionId: "s", readOnly: false, weight: 1 },
          deadlineMs: 10_000,
        },
        classify,
      );
      expect(patch.classification.writeEffect?.objects).toEqual([
        { object: "num:o/r#5", facets: ["core", "state", "head"] },
      ]);
    });

    it("CI, comments, reviews, title and state edits leave it (none changes the diff); a push moves it", () => {
      const moves = [
        ...checksMovedTags("o", "r", SHA5, {
          object: "num:o/r#5",
          facets: ["checks"],
          ids: ["PR_5"],
          branch: "feature",
        }),
        ...written(effectOf("pr_comment", 1, pr5)),
        ...written(restWriteEffect("POST", "/repos/o/r/pulls/5/reviews")),
        ...written(restWriteEffect("PATCH", "/repos/o/r/pulls/5", JSON.stringify({ title: "new" }))),
        ...written(restWriteEffect("PATCH", "/repos/o/r/pulls/5", JSON.stringify({ state: "closed" }))),
      ];
      const gone = dead(moves);
      expect(gone).toContain("GET pulls/5");
      expect(gone).not.toContain("pr diff 5");
      // A new head does: a push to the PR's branch.
      const push = restWriteEffect(
        "PATCH",
        "/repos/o/r/git/refs/heads/feature",
        JSON.stringify({ sha: SHA6 }),
      );
      expect(dead(written(push))).toContain("pr diff 5");
    });

    it("REST PATCH pulls/N naming a base moves the head (a new base is a new diff); a body not known may", () => {
      expect(
        restWriteEffect("PATCH", "/repos/o/r/pulls/5", JSON.stringify({ base: "develop" })).objects,
      ).toEqual([{ object: "num:o/r#5", facets: ["core", "state", "head"] }]);
      const gone = dead(written(restWriteEffect("PATCH", "/repos/o/r/pulls/5", '{"base":"develop"}')));
      expect(gone).toContain("pr diff 5");
      expect(gone).not.toContain("pr view 6");
      // No body handed in, or one that is not a JSON object: it may have named a base.
      expect(dead(written(restWriteEffect("PATCH", "/repos/o/r/pulls/5")))).toContain("pr diff 5");
      expect(dead(written(restWriteEffect("PATCH", "/repos/o/r/pulls/5", "not json")))).toContain(
        "pr diff 5",
      );
      // Without a base the head stays: the diff, commits and files are kept.
      expect(restWriteEffect("PATCH", "/repos/o/r/pulls/5", '{"title":"x","body":"y"}').objects).toEqual([
        { object: "num:o/r#5", facets: ["core", "state"] },
      ]);
    });

    it("GraphQL updatePullRequest naming a baseRefName moves the head (gh pr edit --base); a title edit does not", () => {
      const mutation = (input: Record<string, unknown>) => {
        const analysis = analyzeGraphQL({
          schema,
          query:
            "mutation($input: UpdatePullRequestInput!) { updatePullRequest(input: $input) { pullRequest { id } } }",
          variables: { input },
        });
        if ("error" in analysis) throw new Error(analysis.message);
        return analysis.writeEffect;
      };
      const base = mutation({ pullRequestId: "PR_5", baseRefName: "develop" });
      expect(base.nodeIds).toEqual([{ id: "PR_5", facets: ["core", "head"] }]);
      expect(dead(written(base))).toContain("pr diff 5");
      const title = mutation({ pullRequestId: "PR_5", title: "new" });
      expect(title.nodeIds).toEqual([{ id: "PR_5", facets: ["core"] }]);
      expect(dead(written(title))).not.toContain("pr diff 5");
    });
  });
});
