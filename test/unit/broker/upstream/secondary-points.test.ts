import { describe, expect, it } from "vitest";
import { endpointKey, secondaryPoints } from "../../../../broker/upstream/core/secondary-points.js";

describe("secondaryPoints", () => {
  it.each([
    { name: "a GraphQL query costs 1", kind: "graphql", method: "POST", mutation: false, want: 1 },
    { name: "a GraphQL mutation costs 5", kind: "graphql", method: "POST", mutation: true, want: 5 },
    { name: "a REST GET costs 1", kind: "rest", method: "GET", mutation: false, want: 1 },
    { name: "a REST HEAD costs 1", kind: "rest", method: "head", mutation: false, want: 1 },
    { name: "a REST POST costs 5", kind: "rest", method: "POST", mutation: true, want: 5 },
    { name: "a REST DELETE costs 5", kind: "rest", method: "DELETE", mutation: true, want: 5 },
  ] as const)("$name", ({ kind, method, mutation, want }) => {
    expect(secondaryPoints(kind, method, mutation)).toBe(want);
  });
});

describe("endpointKey", () => {
  it.each([
    { name: "GraphQL is one endpoint", kind: "graphql", path: "/graphql", want: "graphql" },
    {
      name: "owner, repo and numbers become placeholders",
      kind: "rest",
      path: "/repos/acme/widgets/pulls/12?per_page=1",
      want: "/repos/:owner/:repo/pulls/:n",
    },
    {
      name: "another repo is the same endpoint",
      kind: "rest",
      path: "/repos/other/thing/pulls/7",
      want: "/repos/:owner/:repo/pulls/:n",
    },
    {
      name: "SHAs become placeholders",
      kind: "rest",
      path: "/repos/a/b/commits/0123456789abcdef0123456789abcdef01234567/check-runs",
      want: "/repos/:owner/:repo/commits/:sha/check-runs",
    },
    {
      name: "user names become placeholders",
      kind: "rest",
      path: "/users/octocat/repos",
      want: "/users/:owner/repos",
    },
    {
      name: "run ids and job logs",
      kind: "rest",
      path: "/repos/a/b/actions/jobs/399444496/logs",
      want: "/repos/:owner/:repo/actions/jobs/:n/logs",
    },
    { name: "a plain path stays", kind: "rest", path: "/rate_limit", want: "/rate_limit" },
    {
      name: "the query string is ignored",
      kind: "rest",
      path: "/search/issues?q=repo:acme/widgets",
      want: "/search/issues",
    },
  ] as const)("$name", ({ kind, path, want }) => {
    expect(endpointKey(kind, path)).toBe(want);
  });
});
