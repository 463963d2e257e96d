import { parse } from "graphql";
import { describe, expect, it } from "vitest";
import { mergeQueries, planMember, RATE_LIMIT_ALIAS } from "../../../../broker/batch/index.js";
import { computeQueryCost, loadGitHubSchema, validateGitHubDocument } from "../../../../github/index.js";
import { normalizeJson } from "./support/deterministic-executor.js";
import { type MemberSpec, merge, runAlone, runMerged } from "./support/merge-harness.js";

const schema = loadGitHubSchema();

/** Merges the specs, executes merged and alone, and expects every split answer to equal its answer alone. */
async function expectSplitEqualsAlone(specs: readonly MemberSpec[]) {
  const { merged, members } = merge(schema, specs);
  expect(validateGitHubDocument(schema, parse(merged.query))).toEqual([]);
  const { split, response } = await runMerged(schema, merged);
  const answers: Record<string, unknown>[] = [];
  for (const [i, outcome] of split.members.entries()) {
    expect(outcome.kind).toBe("answer");
    if (outcome.kind !== "answer") continue;
    const alone = await runAlone(schema, specs[i] as MemberSpec);
    expect(normalizeJson(outcome.body), `member ${i}`).toBe(normalizeJson(alone));
    answers.push(outcome.body);
  }
  return { merged, members, split, response, answers };
}

const PR = `query PullRequestByNumber($owner: String!, $repo: String!, $pr_number: Int!) {
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $pr_number) { number title headRefName }
  }
}`;

describe("mergeQueries", () => {
  describe("when members ask for different root fields", () => {
    it("prefixes each member's root keys and variables, and keeps each member's key order", async () => {
      const { merged, answers } = await expectSplitEqualsAlone([
        { query: '{ viewer { login } repository(owner: "o", name: "r") { name } }' },
        {
          query: 'query($n: String!) { repository(owner: "o", name: $n) { name } viewer { login } }',
          variables: { n: "x" },
        },
      ]);
      expect(merged.query).toContain("b0_viewer: viewer");
      expect(merged.query).toContain("b1_repository: repository");
      expect(merged.variables).toEqual({ b1_n: "x" });
      expect(Object.keys(answers[0]?.data as object)).toEqual(["viewer", "repository"]);
      expect(Object.keys(answers[1]?.data as object)).toEqual(["repository", "viewer"]);
    });

    it("keeps members' own root aliases, prefixed", async () => {
      const { merged, answers } = await expectSplitEqualsAlone([
        { query: "{ me: viewer { login } again: viewer { name } }" },
        { query: "{ me: viewer { login } }" },
      ]);
      expect(merged.query).toContain("b0_me: viewer");
      expect(merged.query).toContain("b1_me: viewer");
      expect(Object.keys(answers[0]?.data as object)).toEqual(["me", "again"]);
    });

    it("costs the sum of the members' requests", () => {
      const { merged, members } = merge(schema, [
        {
          query:
            '{ repository(owner: "o", name: "r") { issues(first: 10) { nodes { labels(first: 5) { nodes { name } } } } } }',
        },
        { query: '{ repository(owner: "o", name: "s") { pullRequests(first: 3) { nodes { number } } } }' },
      ]);
      const cost = computeQueryCost({ schema, document: parse(merged.query), variables: merged.variables });
      expect(cost.requests).toBe(members[0]!.requests + members[1]!.requests);
      expect(cost.requests).toBe(12);
    });

    it("merges the same query from many members with different variables without conflating them", async () => {
      const specs = [5, 6, 950, 7].map((n) => ({
        query: PR,
        variables: { owner: "o", repo: "r", pr_number: n },
      }));
      const { answers, merged } = await expectSplitEqualsAlone(specs);
      expect(merged.variables).toMatchObject({ b2_pr_number: 950, b3_pr_number: 7 });
      // The missing PR's NOT_FOUND stays with its caller; the others see no errors at all.
      expect(answers.map((a) => "errors" in a)).toEqual([false, false, true, false]);
      expect(answers[2]?.errors).toEqual([
        expect.objectContaining({
          path: ["repository", "pullRequest"],
          locations: [{ line: 3, column: 5 }],
          extensions: { type: "NOT_FOUND" },
        }),
      ]);
    });

    it("merges node(id:) and nodes(ids:) lookups, a missing node failing only its caller", async () => {
      const { answers } = await expectSplitEqualsAlone([
        {
          query: "query($id: ID!) { node(id: $id) { id ... on PullRequest { number } } }",
          variables: { id: "PR_1" },
        },
        { query: "query($id: ID!) { node(id: $id) { id } }", variables: { id: "MISSING_1" } },
        { query: "query($ids: [ID!]!) { nodes(ids: $ids) { id } }", variables: { ids: ["a", "b"] } },
      ]);
      expect(answers.map((a) => "errors" in a)).toEqual([false, true, false]);
    });

    it("aliases root __typename", async () => {
      const { answers } = await expectSplitEqualsAlone([
        { query: "{ __typename }" },
        { query: "{ t: __typename }" },
      ]);
      expect(answers).toEqual([{ data: { __typename: "Query" } }, { data: { t: "Query" } }]);
    });
  });

  describe("when members have fragments", () => {
    const withFragment = (body: string) =>
      `fragment pr on PullRequest {${body}}\nquery($o: String!) { repository(owner: $o, name: "r") { pullRequests(first: 2) { nodes { ...pr } } } }`;

    it("renames fragments that share a name but not a body", async () => {
      const { merged } = await expectSplitEqualsAlone([
        { query: withFragment("number"), variables: { o: "a" } },
        { query: withFragment("number title"), variables: { o: "b" } },
      ]);
      expect(merged.fragmentCount).toBe(2);
      expect(merged.query).toMatch(/fragment f0_pr on PullRequest \{number\}/);
      expect(merged.query).toMatch(/fragment f1_pr on PullRequest \{number title\}/);
    });

    it("sends one copy of a fragment whose text is identical in every member", async () => {
      const { merged } = await expectSplitEqualsAlone(
        ["a", "b", "c"].map((o) => ({ query: withFragment("number title"), variables: { o } })),
      );
      expect(merged.fragmentCount).toBe(1);
      expect(merged.query.match(/fragment /g)).toHaveLength(1);
    });

    it("shares a fragment only together with identical fragments it spreads", async () => {
      const doc = (inner: string) =>
        `fragment outer on PullRequest { ...inner url }\nfragment inner on PullRequest { ${inner} }\n{ repository(owner: "o", name: "r") { pullRequests(first: 1) { nodes { ...outer } } } }`;
      const { merged } = await expectSplitEqualsAlone([
        { query: doc("number") },
        { query: doc("number") },
        { query: doc("title") },
      ]);
      // inner(number), outer→inner(number), inner(title), outer→inner(title)
      expect(merged.fragmentCount).toBe(4);
    });

    it("keeps a fragment that reads a variable per member", async () => {
      const query = `fragment checks on PullRequest { id commits(last: 1) { nodes { commit { statusCheckRollup { contexts(first: 5) { nodes { ... on CheckRun { name isRequired(pullRequestId: $id) } } } } } } } }
query($id: ID!) { node(id: $id) { ...checks } }`;
      const { merged } = await expectSplitEqualsAlone([
        { query, variables: { id: "PR_1" } },
        { query, variables: { id: "PR_2" } },
      ]);
      expect(merged.fragmentCount).toBe(2);
      expect(merged.query).toContain("isRequired(pullRequestId: $b0_id)");
      expect(merged.query).toContain("isRequired(pullRequestId: $b1_id)");
    });

    it("aliases the fields of root-level inline fragments and fragment spreads", async () => {
      const query = `{ ... on Query { viewer { login } } ...Q }
fragment Q on Query { repository(owner: "o", name: "r") { name } }`;
      const { merged, answers } = await expectSplitEqualsAlone([{ query }, { query }]);
      expect(merged.query).toContain("b0_viewer: viewer");
      expect(merged.query).toContain("b1_repository: repository");
      expect(merged.fragmentCount).toBe(2);
      expect(Object.keys(answers[1]?.data as object)).toEqual(["viewer", "repository"]);
    });
  });

  describe("when a member's document holds several operations", () => {
    it("merges only the named operation and the fragments it uses", async () => {
      const query = `mutation M { addStar(input: {starrableId: "x"}) { starrable { ...S } } }
query Q($o: String!) { repository(owner: $o, name: "r") { ...R } }
fragment S on Starrable { stargazerCount }
fragment R on Repository { name }`;
      const { merged } = await expectSplitEqualsAlone([
        { query, variables: { o: "a" }, operationName: "Q" },
        { query: "{ viewer { login } }" },
      ]);
      expect(merged.query).not.toContain("addStar");
      expect(merged.query).not.toContain("stargazerCount");
      expect(merged.fragmentCount).toBe(1);
    });
  });

  describe("when members use variables", () => {
    const query = `query($states: [IssueState!] = OPEN, $n: Int = 3) {
  repository(owner: "o", name: "r") { issues(first: $n, states: $states) { totalCount nodes { number } } }
}`;

    it("keeps default values: an omitted variable takes its default, an explicit null stays null", async () => {
      const { merged } = await expectSplitEqualsAlone([
        { query, variables: {} },
        { query, variables: { states: null } },
        { query, variables: { states: ["CLOSED"], n: 2 } },
      ]);
      expect(merged.query).toContain("$b0_states: [IssueState!] = OPEN");
      expect(merged.variables).toEqual({ b1_states: null, b2_states: ["CLOSED"], b2_n: 2 });
    });

    it("drops variables the operation does not declare", () => {
      const { merged } = merge(schema, [
        { query: "{ viewer { login } }", variables: { extra: 1 } },
        { query: PR, variables: { owner: "o", repo: "r", pr_number: 1, extra: 2 } },
      ]);
      expect(merged.variables).toEqual({ b1_owner: "o", b1_repo: "r", b1_pr_number: 1 });
    });

    it("evaluates @skip and @include per member", async () => {
      const q = `query($a: Boolean!, $b: Boolean = true) {
  viewer @include(if: $a) { login }
  repository(owner: "o", name: "r") @skip(if: $b) { name nameWithOwner @include(if: $a) }
}`;
      const { answers } = await expectSplitEqualsAlone([
        { query: q, variables: { a: true } },
        { query: q, variables: { a: false, b: false } },
        { query: q, variables: { a: true, b: false } },
      ]);
      expect(answers.map((a) => Object.keys(a.data as object))).toEqual([
        ["viewer"],
        ["repository"],
        ["viewer", "repository"],
      ]);
    });
  });

  describe("when rateLimit is injected", () => {
    it("adds it under the reserved alias and gives it to no member", async () => {
      const { merged, split, answers } = await expectSplitEqualsAlone([
        { query: "{ viewer { login } }" },
        { query: "{ viewer { name } }" },
      ]);
      expect(merged.query).toContain(
        `${RATE_LIMIT_ALIAS}: rateLimit { cost remaining resetAt limit used nodeCount }`,
      );
      expect(split.rateLimit).toEqual(expect.objectContaining({ cost: expect.any(Number) }));
      for (const answer of answers) expect(answer.data).not.toHaveProperty(RATE_LIMIT_ALIAS);
    });

    it("adds none when asked not to", () => {
      const { merged } = merge(schema, [{ query: "{ viewer { login } }" }], { rateLimitAlias: false });
      expect(merged.query).not.toContain("rateLimit");
      expect(merged.rateLimitAlias).toBeUndefined();
    });
  });

  describe("when given no members", () => {
    it("throws a RangeError", () => {
      expect(() => merge(schema, [])).toThrow(RangeError);
    });
  });
});

describe("mergeQueries of mutations (decision 0023)", () => {
  const COMMENT =
    "mutation CommentCreate($input:AddCommentInput!){addComment(input: $input){commentEdge{node{url}}}}";
  const plan = (query: string, mutations = true) => {
    const planned = planMember(parse(query), undefined, { mutations });
    if (!planned.ok) throw new Error(planned.message);
    return planned.plan;
  };
  const member = (i: number, query = COMMENT) => ({
    id: `m${i}`,
    source: query,
    plan: plan(query),
    variables: { input: { subjectId: `PR_${i}`, body: `b${i}` } },
  });

  it("writes one valid mutation, members in order, with no rateLimit even when asked for one", () => {
    const merged = mergeQueries([member(0), member(1)], { rateLimitAlias: RATE_LIMIT_ALIAS });
    expect(merged.query.startsWith("mutation AoBrokerBatch($b0_input:AddCommentInput!, $b1_input")).toBe(
      true,
    );
    expect(merged.query.indexOf("b0_addComment")).toBeLessThan(merged.query.indexOf("b1_addComment"));
    expect(merged.query).not.toContain("rateLimit");
    expect(merged.rateLimitAlias).toBeUndefined();
    expect(merged.variables).toEqual({
      b0_input: { subjectId: "PR_0", body: "b0" },
      b1_input: { subjectId: "PR_1", body: "b1" },
    });
    expect(validateGitHubDocument(schema, parse(merged.query))).toEqual([]);
    // One request however many members: no connections, GitHub's minimum of 1 point.
    expect(
      computeQueryCost({ schema, document: parse(merged.query), variables: merged.variables }).cost,
    ).toBe(1);
  });

  it("refuses to merge a mutation with a query", () => {
    const query = {
      id: "q",
      source: "{ viewer { login } }",
      plan: plan("{ viewer { login } }"),
      variables: {},
    };
    expect(() => mergeQueries([member(0), query])).toThrow(RangeError);
  });

  it("plans a mutation only when asked to", () => {
    expect(planMember(parse(COMMENT))).toMatchObject({ ok: false, reason: "mutation" });
    expect(planMember(parse(COMMENT), undefined, { mutations: true })).toMatchObject({ ok: true });
  });
});
