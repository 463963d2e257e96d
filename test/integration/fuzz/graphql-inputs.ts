/**
 * GraphQL documents and variables for the gateway fuzzer: real gh queries with mangled arguments,
 * token soup, deep nesting, alias floods, fragment cycles, huge literals, introspection and the odd
 * mutation (rare: a well-formed mutation takes the serial write lane, one a second).
 */
import type { Rng } from "./rng.js";

const GH_QUERIES = [
  "query PullRequestByNumber($owner: String!, $repo: String!, $pr_number: Int!) { repository(owner: $owner, name: $repo) { pullRequest(number: $pr_number) { id title state number url isDraft headRefName baseRefName } } }",
  'query { repository(owner: "acme", name: "widgets") { issue(number: 10) { title body comments(first: 5) { nodes { body author { login } } } } } }',
  "query { viewer { login } rateLimit { cost remaining resetAt } }",
  "query($owner: String!, $repo: String!) { repository(owner: $owner, name: $repo) { pullRequests(first: 10, states: OPEN) { nodes { number title commits(last: 1) { nodes { commit { statusCheckRollup { state } } } } } } } }",
  'query { repository(owner: "acme", name: "widgets") { pullRequest(number: 1) { reviews(first: 100) { nodes { state body } } } } }',
];

const TOKENS = [
  "query",
  "mutation",
  "subscription",
  "fragment",
  "on",
  "{",
  "}",
  "(",
  ")",
  "[",
  "]",
  ":",
  "$",
  "!",
  "...",
  "@include",
  "@skip",
  "(if: true)",
  "repository",
  "pullRequest",
  "number",
  "first:",
  "100",
  "-1",
  "1e9",
  '"x"',
  '"""block"""',
  "null",
  "true",
  "__typename",
  "__schema",
  "__type",
  "id",
  ",",
  "=",
  "|",
  "&",
  "#comment\n",
  "\\u0000",
  "viewer",
  "login",
  "nodes",
  "edges",
  "node",
];

export function graphqlDocument(rng: Rng): string {
  switch (rng.int(0, 11)) {
    case 0:
    case 1: {
      // A real query with one argument value or name mangled.
      const base = rng.pick(GH_QUERIES);
      return base.replace(
        rng.pick([/first: 5/, /first: 10/, /number: 10/, /"widgets"/, /\$pr_number: Int!/]),
        rng.pick([
          "first: 1000000",
          "first: -1",
          'number: "x"',
          "number: 1e99",
          "",
          `"${"a".repeat(rng.int(1, 5000))}"`,
          "$undefined: Int",
        ]),
      );
    }
    case 2:
      return rng.pick(GH_QUERIES);
    case 3:
      return Array.from({ length: rng.length(200) }, () => rng.pick(TOKENS)).join(" ");
    case 4: {
      const depth = rng.pick([10, 100, 1_000, 5_000, 20_000]);
      return `query { ${'repository(owner: "acme", name: "widgets") { '.repeat(depth)}id${" }".repeat(depth)} }`;
    }
    case 5: {
      const depth = rng.pick([100, 2_000, 50_000]);
      return `${"{".repeat(depth)}${"}".repeat(rng.chance(0.5) ? depth : rng.int(0, depth))}`;
    }
    case 6: {
      const n = rng.pick([10, 500, 5_000]);
      const fields = Array.from({ length: n }, (_, i) => `a${i}: viewer { login }`).join(" ");
      return `query { ${fields} }`;
    }
    case 7:
      return "query { viewer { ...A } } fragment A on User { ...B } fragment B on User { ...A }";
    case 8:
      return `query { search(query: "${rng.text(rng.length(20_000), true).replace(/"/g, "")}", type: ISSUE, first: 100) { issueCount } }`;
    case 9:
      return rng.pick([
        "query { __schema { types { name fields { name } } } }",
        'query { __type(name: "PullRequest") { fields { name } } }',
        "{ __typename }",
      ]);
    case 10:
      // Rare well-formed mutations (serial lane); the rest are broken ones.
      return rng.chance(0.05)
        ? 'mutation { addComment(input: {subjectId: "I_nope", body: "fuzz"}) { clientMutationId } }'
        : `mutation { ${rng.pick(TOKENS)} ${rng.pick(TOKENS)} }`;
    default:
      return rng.text(rng.length(2_000), true);
  }
}

export function graphqlVariables(rng: Rng): unknown {
  switch (rng.int(0, 6)) {
    case 0:
      return { owner: "acme", repo: "widgets", pr_number: rng.pick([1, 2, -1, 0, 2 ** 31, 1.5, "1", null]) };
    case 1:
      return rng.json(4);
    case 2: {
      // Nesting (deeper still as text: see graphqlBody).
      let v: unknown = 1;
      for (let i = rng.pick([10, 200, 1_000]); i > 0; i--) v = { v };
      return v;
    }
    case 3:
      return { big: Array.from({ length: rng.pick([10, 10_000, 100_000]) }, (_, i) => i) };
    case 4:
      return rng.pick([null, [], "string", 42, true]);
    default:
      return undefined;
  }
}

/** A /graphql request body: usually JSON with query and variables, sometimes not. */
export function graphqlBody(rng: Rng): string {
  switch (rng.int(0, 9)) {
    case 0:
      return rng.text(rng.length(500), true);
    case 1:
      return JSON.stringify(rng.json(3));
    case 2:
      return JSON.stringify({ query: rng.json(1), variables: graphqlVariables(rng) });
    case 3:
      return `{"query": "${"{".repeat(rng.int(1, 10))}`; // truncated JSON
    case 4: {
      // Nesting too deep for JSON.stringify to build: written as text.
      const depth = rng.pick([5_000, 50_000, 200_000]);
      const nested = rng.chance(0.5)
        ? `${'{"v":'.repeat(depth)}1${"}".repeat(depth)}`
        : `${"[".repeat(depth)}${"]".repeat(depth)}`;
      return `{"query": ${JSON.stringify(rng.pick(GH_QUERIES))}, "variables": {"deep": ${nested}}}`;
    }
    default: {
      const body: Record<string, unknown> = { query: graphqlDocument(rng) };
      const variables = graphqlVariables(rng);
      if (variables !== undefined) body.variables = variables;
      if (rng.chance(0.2)) body.operationName = rng.pick(["PullRequestByNumber", "", "Nope", 42, null]);
      return JSON.stringify(body);
    }
  }
}
