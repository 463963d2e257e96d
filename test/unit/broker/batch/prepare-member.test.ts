import { buildSchema } from "graphql";
import { describe, expect, it } from "vitest";
import type { AloneReason } from "../../../../broker/batch/index.js";
import { BatchErrors, DocumentAnalysisCache, prepareMember } from "../../../../broker/batch/index.js";
import { isAoError } from "../../../../common/index.js";
import { loadGitHubSchema } from "../../../../github/index.js";

const schema = loadGitHubSchema();
const prepare = (query: string, variables?: unknown, operationName?: string, caps?: { maxCost?: number }) =>
  prepareMember({ id: "m", query, variables, operationName }, { schema, caps });

const PR_VIEW = `query PullRequestByNumber($owner: String!, $repo: String!, $pr_number: Int!) {
  repository(owner: $owner, name: $repo) { pullRequest(number: $pr_number) { number title } }
}`;

describe("prepareMember", () => {
  describe("when the query can be merged", () => {
    it("returns its plan, computed requests, points and nodes", () => {
      const member = prepare(
        'query($o: String!) { repository(owner: $o, name: "r") { issues(first: 10) { nodes { labels(first: 5) { totalCount nodes { name } } } } } }',
        { o: "x" },
      );
      expect(member.eligible).toBe(true);
      if (!member.eligible) return;
      expect(member.requests).toBe(11);
      expect(member.cost).toBe(1);
      expect(member.nodeCount).toBe(60);
      expect(member.variables).toEqual({ o: "x" });
    });

    it("accepts root __typename, node(id:) and nodes(ids:)", () => {
      for (const query of [
        "{ __typename viewer { login } }",
        "query($id: ID!) { node(id: $id) { id ... on PullRequest { number } } }",
        'query { nodes(ids: ["a", "b"]) { id } }',
      ]) {
        expect(prepare(query, { id: "x" }).eligible, query).toBe(true);
      }
    });

    it("treats null variables as none", () => {
      const member = prepare("{ viewer { login } }", null);
      expect(member.eligible && member.variables).toEqual({});
    });

    it("chooses the named operation of several", () => {
      const member = prepare("query A { viewer { login } } query B { viewer { name } }", {}, "B");
      expect(member.eligible && member.plan.operation.name?.value).toBe("B");
    });
  });

  describe("when the query must go alone", () => {
    it.each<{
      name: string;
      query: string;
      variables?: unknown;
      operationName?: string;
      reason: AloneReason;
    }>([
      { name: "text that does not parse", query: "query { viewer { login }", reason: "parse-error" },
      {
        name: "variables that are not an object",
        query: "{ viewer { login } }",
        variables: [1],
        reason: "invalid-variables",
      },
      {
        name: "a mutation",
        query: 'mutation { addStar(input: {starrableId: "x"}) { clientMutationId } }',
        reason: "mutation",
      },
      { name: "a subscription", query: "subscription { viewer { login } }", reason: "subscription" },
      {
        name: "several operations and no name",
        query: "query A { viewer { login } } query B { viewer { name } }",
        reason: "ambiguous-operation",
      },
      {
        name: "an operationName that names none",
        query: "query A { viewer { login } }",
        operationName: "Z",
        reason: "no-operation",
      },
      { name: "a fragment-only document", query: "fragment f on User { login }", reason: "no-operation" },
      { name: "__schema", query: "{ __schema { queryType { name } } }", reason: "introspection" },
      {
        name: "__type (gh pr merge's PullRequest_fields)",
        query:
          'query PullRequest_fields{PullRequest: __type(name: "PullRequest"){fields(includeDeprecated: true){name}}}',
        reason: "introspection",
      },
      {
        name: "a query selecting rateLimit",
        query: "{ rateLimit { cost } viewer { login } }",
        reason: "selects-rate-limit",
      },
      {
        name: "rateLimit through a root fragment",
        query: "{ ...F } fragment F on Query { rateLimit { remaining } }",
        reason: "selects-rate-limit",
      },
      {
        name: "a directive on the operation",
        query: "query Q @skip(if: true) { viewer { login } }",
        reason: "operation-directives",
      },
      {
        name: "a directive on a variable definition",
        query: "query Q($a: Int @deprecated) { viewer { login } }",
        reason: "operation-directives",
      },
      {
        name: "a fragment used at the root and nested",
        query: "{ ...F relay { ...F } } fragment F on Query { viewer { login } }",
        reason: "root-fragment-reuse",
      },
      { name: "an unknown field", query: "{ viewer { loginn } }", reason: "validation-error" },
      { name: "an unknown directive", query: "{ viewer @cached { login } }", reason: "validation-error" },
      { name: "an unknown fragment", query: "{ viewer { ...Nope } }", reason: "validation-error" },
      {
        name: "an unused variable",
        query: "query($a: Int) { viewer { login } }",
        reason: "validation-error",
      },
      {
        name: "a connection without first/last",
        query: '{ repository(owner: "o", name: "r") { issues { nodes { title } } } }',
        reason: "cost-error",
      },
      {
        name: "a page over 100",
        query: '{ repository(owner: "o", name: "r") { issues(first: 101) { nodes { title } } } }',
        reason: "cost-error",
      },
      {
        name: "a missing required variable",
        query: PR_VIEW,
        variables: { owner: "o", repo: "r" },
        reason: "variable-error",
      },
      {
        name: "a variable of the wrong type",
        query: PR_VIEW,
        variables: { owner: "o", repo: "r", pr_number: "five" },
        reason: "variable-error",
      },
      {
        name: "a required variable sent as null",
        query: PR_VIEW,
        variables: { owner: "o", repo: "r", pr_number: null },
        reason: "variable-error",
      },
    ])("sends $name alone", ({ query, variables, operationName, reason }) => {
      const member = prepare(query, variables ?? {}, operationName);
      expect(member.eligible).toBe(false);
      if (member.eligible) return;
      expect(member.reason).toBe(reason);
      expect(member.message.length).toBeGreaterThan(0);
      expect(member.variables).toEqual(variables ?? {});
    });

    it("sends a query over the merged-query caps alone, with its computed cost", () => {
      const member = prepare(
        '{ repository(owner: "o", name: "r") { issues(first: 100) { nodes { labels(first: 100) { nodes { name } } assignees(first: 100) { nodes { login } } } } } }',
        {},
        undefined,
        { maxCost: 1 },
      );
      expect(member.eligible).toBe(false);
      if (member.eligible) return;
      expect(member.reason).toBe("over-caps");
      expect(member.requests).toBe(201);
      expect(member.cost).toBe(2);
    });
  });

  describe("when given an analysis cache", () => {
    it("analyses a query text once and still checks each member's variables", () => {
      const cache = new DocumentAnalysisCache(2);
      const first = prepareMember(
        { id: "a", query: PR_VIEW, variables: { owner: "o", repo: "r", pr_number: 1 } },
        { schema, cache },
      );
      const second = prepareMember(
        { id: "b", query: PR_VIEW, variables: { owner: "o", repo: "r", pr_number: 2 } },
        { schema, cache },
      );
      const bad = prepareMember(
        { id: "c", query: PR_VIEW, variables: { owner: "o", repo: "r" } },
        { schema, cache },
      );
      expect(first.eligible && second.eligible && first.document === second.document).toBe(true);
      expect(second.eligible && second.variables).toEqual({ owner: "o", repo: "r", pr_number: 2 });
      expect(!bad.eligible && bad.reason).toBe("variable-error");
      expect(cache.size).toBe(1);
    });

    it("remembers refusals too, and forgets the least recently used beyond its size", () => {
      const cache = new DocumentAnalysisCache(2);
      for (const query of ["{ viewer { loginn } }", "{ viewer { login } }", "{ viewer { name } }"]) {
        prepareMember({ id: "x", query }, { schema, cache });
      }
      expect(cache.size).toBe(2);
      expect(cache.get("\u0000{ viewer { loginn } }")).toBeUndefined();
      expect(cache.get("\u0000{ viewer { name } }")).toMatchObject({ ok: true });
    });
  });

  describe("when the input is not a GraphQL request", () => {
    it("throws AO_ERR_BATCH_INVALID_MEMBER", () => {
      expect(() => prepareMember({ id: "m", query: 42 as unknown as string }, { schema })).toThrow(
        expect.objectContaining({ code: BatchErrors.AO_ERR_BATCH_INVALID_MEMBER }),
      );
      try {
        prepareMember({ id: "", query: "{ viewer { login } }" }, { schema });
      } catch (error) {
        expect(isAoError(error, BatchErrors.AO_ERR_BATCH_INVALID_MEMBER)).toBe(true);
      }
    });
  });
});

describe("prepareMember for the write batcher (mutations: true)", () => {
  const tiny = buildSchema("type Query { a: Int } type Mutation { must(x: Int): Int! maybe(x: Int): Int }");

  it.each([
    { name: "a nullable root field", query: "mutation { maybe(x: 1) }", eligible: true },
    {
      name: "a non-null root field (its failure would null everyone's data)",
      query: "mutation { must(x: 1) }",
      eligible: false,
    },
    { name: "both", query: "mutation { maybe(x: 1) must(x: 2) }", eligible: false },
  ])("accepts only nullable root fields: $name", ({ query, eligible }) => {
    const member = prepareMember({ id: "m", query }, { schema: tiny, mutations: true });
    expect(member.eligible).toBe(eligible);
    if (!member.eligible) expect(member.reason).toBe("mutation");
  });

  it("still sends a mutation alone without the option", () => {
    expect(prepareMember({ id: "m", query: "mutation { maybe(x: 1) }" }, { schema: tiny })).toMatchObject({
      eligible: false,
      reason: "mutation",
    });
  });
});
