import { Kind, parse, print } from "graphql";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { buildEnrichmentQuery, parseEnrichmentAnswer } from "../../../lifecycle/core/enrichment-query.js";
import { capturedGraphQLRequests } from "../../support/traffic.js";
import { gql, proxied } from "./support.js";

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.reset();
});

const graphqlUsed = () => sim.stats().resources.graphql.used;

/** Points the captured variables (repo o/r, PR 5, issue 7) at the default world (acme/widgets, PR 1, issue 10). */
function mapVariables(vars: Record<string, unknown>): Record<string, unknown> {
  const repo = sim.world.repo("acme/widgets");
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(vars ?? {})) {
    if (typeof value === "string" && (key === "owner" || value === "o" || value === "up")) out[key] = "acme";
    else if (value === "r") out[key] = "widgets";
    else if (key === "pr_number" || (key === "number" && value === 5)) out[key] = 1;
    else if (key === "number" && value === 7) out[key] = 10;
    else if (key === "id" && typeof value === "string" && value.startsWith("PU_"))
      out[key] = repo?.pulls.get(1)?.nodeId;
    else if (key === "id" && typeof value === "string" && value.startsWith("IS_"))
      out[key] = repo?.issues.get(10)?.nodeId;
    else if (key === "headRefName") out[key] = "feature/frobnicator";
    else if (typeof value === "string") out[key] = value.replace("repo:o/r", "repo:acme/widgets");
    else out[key] = value;
  }
  return out;
}

/** Adds `rateLimit { cost nodeCount }` to a query operation's root selection. */
function withRateLimit(query: string): string | undefined {
  const doc = parse(query);
  const op = doc.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  if (op?.kind !== Kind.OPERATION_DEFINITION || op.operation !== "query") return undefined;
  const field = parse("{ rateLimit { cost nodeCount } }").definitions[0];
  if (field?.kind !== Kind.OPERATION_DEFINITION) return undefined;
  const selections = [...op.selectionSet.selections, ...field.selectionSet.selections];
  const patched = {
    ...doc,
    definitions: doc.definitions.map((d) =>
      d === op ? { ...op, selectionSet: { ...op.selectionSet, selections } } : d,
    ),
  };
  return print(patched);
}

describe("the simulator's GraphQL API", () => {
  describe("when gh's captured queries are sent", () => {
    const captured = capturedGraphQLRequests();

    it.each(captured.map((c) => ({ ...c, name: `${c.file}#${c.index} ${c.operationName}` })))(
      "charges $name exactly the documented cost",
      async ({ query, variables, cost, nodeCount }) => {
        const before = graphqlUsed();
        const reply = await gql(sim, query, mapVariables(variables));
        expect(reply.status).toBe(200);
        expect(graphqlUsed() - before).toBe(cost);
        const probe = withRateLimit(query);
        if (probe) {
          const withCost = await gql(sim, probe, mapVariables(variables));
          expect(withCost.json.data?.rateLimit).toEqual({ cost, nodeCount });
        }
      },
    );

    it("answers the read queries with data and no errors", async () => {
      const reads = captured.filter(
        (c) => !/mutation/.test(c.query.split("{")[0] ?? "") && !JSON.stringify(c.variables).includes('"x"'),
      );
      expect(reads.length).toBeGreaterThan(40);
      for (const c of reads) {
        const reply = await gql(sim, c.query, mapVariables(c.variables));
        expect({ file: c.file, errors: reply.json.errors }).toEqual({ file: c.file, errors: undefined });
      }
    });
  });

  describe("when GitHub's documented worked examples are sent", () => {
    it.each([
      {
        name: "5,101 requests → 51 points",
        query: `query { viewer { login repositories(first: 100) { edges { node { name issues(first: 50) { edges { node { title
          labels(first: 60) { edges { node { name } } } } } } } } } } }`,
        cost: 51,
        nodeCount: 305_100,
      },
      {
        name: "550 nodes",
        query: `query { viewer { repositories(first: 50) { edges { repository: node { name
          issues(first: 10) { totalCount edges { node { title bodyHTML } } } } } } } }`,
        cost: 1,
        nodeCount: 550,
      },
      {
        name: "22,060 nodes",
        query: `query { viewer {
          repositories(first: 50) { edges { repository: node { name
            pullRequests(first: 20) { edges { pullRequest: node { title
              comments(first: 10) { edges { comment: node { bodyHTML } } } } } }
            issues(first: 20) { totalCount edges { issue: node { title bodyHTML
              comments(first: 10) { edges { comment: node { bodyHTML } } } } } }
          } } }
          followers(first: 10) { edges { follower: node { login } } }
        } }`,
        cost: 21,
        nodeCount: 22_060,
      },
    ])("charges $name end to end", async ({ query, cost, nodeCount }) => {
      const before = graphqlUsed();
      const withRate = query.replace(/^query \{/, "query { rateLimit { cost nodeCount }");
      const reply = await gql(sim, withRate);
      expect(reply.json.errors).toBeUndefined();
      expect(reply.json.data?.rateLimit).toEqual({ cost, nodeCount });
      expect(graphqlUsed() - before).toBe(cost);
    });
  });

  describe("when a PR is viewed", () => {
    it("returns the scenario's PR, checks and reviews", async () => {
      const reply = await gql(
        sim,
        `query($n: Int!) { repository(owner: "acme", name: "widgets") { pullRequest(number: $n) {
          title state reviewDecision mergeStateStatus
          reviews(first: 10) { nodes { state author { login } } }
          commits(last: 1) { nodes { commit { statusCheckRollup { state contexts(first: 10) {
            nodes { __typename ... on CheckRun { name conclusion } ... on StatusContext { context state } } } } } } }
        } } }`,
        { n: 1 },
      );
      const pr = (reply.json.data as { repository: { pullRequest: Record<string, unknown> } }).repository
        .pullRequest;
      expect(pr).toMatchObject({
        title: "Add widget frobnicator",
        state: "OPEN",
        reviewDecision: "CHANGES_REQUESTED",
        mergeStateStatus: "BLOCKED",
      });
      expect(JSON.stringify(pr)).toContain('{"__typename":"CheckRun","name":"test","conclusion":"FAILURE"}');
      expect(JSON.stringify(pr)).toContain(
        '{"__typename":"StatusContext","context":"ci/coverage","state":"SUCCESS"}',
      );
    });

    it("answers the lifecycle's enrichment with totalCommentsCount, which a new comment moves", async () => {
      const built = buildEnrichmentQuery([{ repo: "acme/widgets", number: 2 }]);
      const facts = async () => {
        const reply = await gql(sim, built.query);
        expect(reply.json.errors).toBeUndefined();
        return parseEnrichmentAnswer(reply.json.data, built, Date.now())[0]?.facts;
      };
      const pr = sim.world.repo("acme/widgets")?.pulls.get(2);
      const before = await facts();
      expect(before?.totalCommentsCount).toBe((pr?.comments.length ?? 0) + (pr?.reviewComments.length ?? 0));
      sim.inject({ type: "comment", number: 2, body: "one more" });
      const after = await facts();
      expect(after?.totalCommentsCount).toBe((before?.totalCommentsCount ?? 0) + 1);
      expect(after?.updatedAt).toBeGreaterThanOrEqual(before?.updatedAt ?? 0);
    });

    it("walks a connection with opaque cursors and correct pageInfo", async () => {
      const numbers: number[] = [];
      let after: string | null = null;
      for (let i = 0; i < 5; i++) {
        const reply = await gql(
          sim,
          `query($after: String) { repository(owner: "acme", name: "widgets") {
            pullRequests(first: 2, after: $after, orderBy: {field: CREATED_AT, direction: ASC}) {
              totalCount nodes { number } pageInfo { hasNextPage endCursor } } } }`,
          { after },
        );
        const conn = (
          reply.json.data as {
            repository: {
              pullRequests: {
                totalCount: number;
                nodes: { number: number }[];
                pageInfo: { hasNextPage: boolean; endCursor: string };
              };
            };
          }
        ).repository.pullRequests;
        expect(conn.totalCount).toBe(3);
        numbers.push(...conn.nodes.map((n) => n.number));
        if (!conn.pageInfo.hasNextPage) break;
        after = conn.pageInfo.endCursor;
      }
      expect(numbers).toEqual([1, 2, 3]);
    });

    it("answers proxy-form requests (absolute URI) like plain ones", async () => {
      const body = JSON.stringify({ query: "{ viewer { login } }" });
      const reply = await proxied<{ data: unknown }>(
        sim,
        "POST",
        "http://api.github.localhost/graphql",
        body,
      );
      expect(reply.json).toEqual({ data: { viewer: { login: "octocat" } } });
      expect(reply.headers["x-ratelimit-resource"]).toBe("graphql");
    });
  });

  describe("when the query is wrong", () => {
    it.each([
      {
        name: "a parse error",
        query: "{ viewer { login }",
        error: { message: "Unexpected end of document" },
      },
      {
        name: "an unexpected character",
        query: "{ viewer { login } } \u00ff",
        error: { message: 'Parse error on "ÿ" (UNKNOWN_CHAR) at [1, 22]' },
      },
      {
        name: "a document nested too deep to parse",
        query: `{${"viewer{".repeat(5000)}login${"}".repeat(5000)}}`,
        error: { message: "Query is too deeply nested" },
      },
      {
        name: "an unknown field",
        query: "{ viewer { nope } }",
        error: {
          message: "Field 'nope' doesn't exist on type 'User'",
          extensions: expect.objectContaining({ code: "undefinedField" }),
        },
      },
      {
        name: "a connection without first/last",
        query: '{ repository(owner: "acme", name: "widgets") { issues { nodes { title } } } }',
        error: {
          type: "MISSING_PAGINATION_BOUNDARIES",
          message: "You must provide a `first` or `last` value to properly paginate the `issues` connection.",
        },
      },
      {
        name: "first over 100",
        query: '{ repository(owner: "acme", name: "widgets") { issues(first: 101) { nodes { title } } } }',
        error: {
          type: "EXCESSIVE_PAGINATION",
          message:
            "Requesting 101 records on the `issues` connection exceeds the `first` limit of 100 records.",
        },
      },
      {
        name: "over 500,000 nodes",
        query:
          "{ viewer { repositories(first: 100) { nodes { issues(first: 100) { nodes { comments(first: 100) { nodes { id } } } } } } } }",
        error: {
          type: "MAX_NODE_LIMIT_EXCEEDED",
          message:
            "This query requests up to 1,010,100 possible nodes which exceeds the maximum limit of 500,000.",
        },
      },
      {
        name: "an invalid variable",
        query:
          'query Q($n: Int!) { repository(owner: "acme", name: "widgets") { pullRequest(number: $n) { id } } }',
        variables: { n: "one" },
        error: { message: "Variable $n of type Int! was provided invalid value" },
      },
    ])("answers $name with GitHub's error and charges nothing", async ({ query, error, variables }) => {
      const before = graphqlUsed();
      const reply = await gql(sim, query, variables ?? {});
      expect(reply.status).toBe(200);
      expect(reply.json.errors?.[0]).toMatchObject(error);
      expect(reply.json.data).toBeUndefined();
      expect(graphqlUsed()).toBe(before);
    });

    it("answers a missing PR with NOT_FOUND in GitHub's words", async () => {
      const reply = await gql(
        sim,
        'query { repository(owner: "acme", name: "widgets") { pullRequest(number: 99) { id } } }',
      );
      expect(reply.json).toEqual({
        data: { repository: { pullRequest: null } },
        errors: [
          {
            type: "NOT_FOUND",
            path: ["repository", "pullRequest"],
            locations: [{ line: 1, column: 54 }],
            message: "Could not resolve to a PullRequest with the number of 99.",
          },
        ],
      });
    });

    it("answers malformed JSON with 400 and a missing query with an error", async () => {
      const bad = await fetch(`${sim.url}/graphql`, {
        method: "POST",
        headers: { authorization: `token ${sim.token}` },
        body: "{not json",
      });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ message: "Problems parsing JSON" });
      const missing = await fetch(`${sim.url}/graphql`, {
        method: "POST",
        headers: { authorization: `token ${sim.token}` },
        body: "{}",
      });
      expect(await missing.json()).toEqual({
        errors: [{ message: "A query attribute must be specified and must be a string." }],
      });
      expect((await gql(sim, "{ viewer { login } }")).json.data).toEqual({ viewer: { login: "octocat" } });
    });
  });

  describe("when the budget is spent", () => {
    it("answers 200 with RATE_LIMITED until the window resets", async () => {
      const t0 = Date.now();
      const small = await startSimulator({
        limits: { graphql: 3 },
        windowSeconds: 10,
        clock: { now: () => t0 },
      });
      try {
        for (let i = 0; i < 3; i++)
          expect((await gql(small, "{ viewer { login } }")).json.errors).toBeUndefined();
        const limited = await gql(small, "{ viewer { login } }");
        expect(limited.status).toBe(200);
        expect(limited.json).toEqual({
          errors: [
            {
              type: "RATE_LIMITED",
              code: "graphql_rate_limit",
              message: "API rate limit exceeded for user ID 1.",
            },
          ],
        });
        expect(limited.headers["x-ratelimit-remaining"]).toBe("0");
        expect(small.stats().requests.rateLimited).toBe(1);
        await small.advance(10_000);
        const again = await gql(small, "{ viewer { login } rateLimit { used remaining limit } }");
        expect(again.json.data?.rateLimit).toEqual({ used: 1, remaining: 2, limit: 3 });
      } finally {
        await small.close();
      }
    });

    it("reports without charging on rateLimit(dryRun: true)", async () => {
      const before = graphqlUsed();
      const reply = await gql(sim, "{ rateLimit(dryRun: true) { cost remaining } }");
      expect(reply.json.data?.rateLimit).toEqual({ cost: 1, remaining: 5000 - before });
      expect(graphqlUsed()).toBe(before);
    });
  });

  describe("when mutations run", () => {
    it("adds a comment, visible in the world and to the next query", async () => {
      const pr = sim.world.repo("acme/widgets")?.pulls.get(2);
      const reply = await gql(
        sim,
        'mutation($id: ID!) { addComment(input: {subjectId: $id, body: "hi"}) { commentEdge { node { body url } } } }',
        {
          id: pr?.nodeId,
        },
      );
      expect(reply.json.errors).toBeUndefined();
      expect(sim.world.repo("acme/widgets")?.pulls.get(2)?.comments.at(-1)?.body).toBe("hi");
      expect(sim.world.changes().map((c) => c.kind)).toEqual(["issue_comment.created"]);
    });

    it("never serves a memoised answer after the world changed, nor memoises rateLimit", async () => {
      const query =
        'query Comments { repository(owner: "acme", name: "widgets") { pullRequest(number: 2) { comments(last: 1) { totalCount nodes { body } } } } }';
      const first = await gql(sim, query);
      expect(await gql(sim, query)).toMatchObject({ text: first.text });
      sim.inject({ type: "comment", number: 2, body: "fresh" });
      expect(JSON.parse((await gql(sim, query)).text)).toEqual({
        data: { repository: { pullRequest: { comments: { totalCount: 2, nodes: [{ body: "fresh" }] } } } },
      });
      const used = async () => (await gql(sim, "{ rateLimit { used } }")).json.data?.rateLimit;
      expect(await used()).not.toEqual(await used());
    });

    it("refuses a second PR for the same branch with UNPROCESSABLE", async () => {
      const repo = sim.world.repo("acme/widgets");
      const reply = await gql(
        sim,
        'mutation($r: ID!) { createPullRequest(input: {repositoryId: $r, baseRefName: "main", headRefName: "feature/frobnicator", title: "again"}) { pullRequest { number } } }',
        { r: repo?.nodeId },
      );
      expect(reply.json.errors?.[0]).toMatchObject({
        type: "UNPROCESSABLE",
        path: ["createPullRequest"],
        message: "A pull request already exists for acme:feature/frobnicator.",
      });
    });
  });
});
