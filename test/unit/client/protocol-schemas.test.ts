import { describe, expect, it } from "vitest";
import { loadProtocolSchemas, METHOD_NAMES, type MethodName } from "../../../client/index.js";

const { paramsSchemas } = await loadProtocolSchemas();

const VALID: { [M in MethodName]: unknown } = {
  hello: { protocol: 1, client: { name: "ao", version: "1.0.0", pid: 4, extra: "allowed" } },
  "session.open": {
    id: "proj-12",
    repo: "acme/widgets",
    weight: 2.5,
    readOnly: false,
    projectId: "proj",
    issueId: "12",
    worktree: "/w/proj-12",
    ttlSeconds: 3600,
  },
  "session.close": { id: "proj-12" },
  "session.list": {},
  "token.issue": {
    sessionId: "proj-12",
    argv: ["pr", "checks", "12"],
    cwd: "/w",
    ttlSeconds: 60,
    readOnly: true,
  },
  "invocation.finish": { invocationId: "inv-1", exitCode: 1, signal: "SIGTERM", durationMs: 120 },
  "budget.get": {},
  graphql: {
    sessionId: "s",
    query: "query { viewer { login } }",
    variables: { n: 1 },
    operationName: "Q",
    priority: "lifecycle",
    deadlineMs: 5000,
    allowStale: true,
  },
  rest: {
    sessionId: "s",
    method: "PATCH",
    path: "/repos/acme/widgets/pulls/1?x=1",
    headers: { accept: "application/vnd.github+json" },
    body: "{}",
    bodyEncoding: "utf8",
    priority: "write",
  },
  stats: {},
  "lifecycle.watch": { sessionId: "s", repo: "acme/widgets", branch: "feat/x", pr: 3 },
  "lifecycle.unwatch": { sessionId: "s" },
  "lifecycle.status": {},
  "events.subscribe": { topics: ["*", "lifecycle.*", "budget.low"] },
  "events.unsubscribe": { subscriptionId: "s1" },
  "broker.status": {},
  "broker.shutdown": {},
};

describe("protocol params schemas", () => {
  it("has exactly one schema per protocol method", () => {
    expect(Object.keys(paramsSchemas).sort()).toEqual([...METHOD_NAMES].sort());
  });

  it.each(METHOD_NAMES.map((name) => ({ name })))("accepts a full valid call of $name", ({ name }) => {
    const result = paramsSchemas[name].safeParse(VALID[name]);
    expect(result.error?.issues ?? []).toEqual([]);
  });

  it.each([
    {
      name: "a session id with a space",
      method: "session.open",
      params: { id: "a b", repo: "a/b" },
      path: "id",
    },
    {
      name: "a repo without owner",
      method: "session.open",
      params: { id: "a", repo: "widgets" },
      path: "repo",
    },
    {
      name: "weight zero",
      method: "session.open",
      params: { id: "a", repo: "a/b", weight: 0 },
      path: "weight",
    },
    {
      name: "a misspelt key",
      method: "session.open",
      params: { id: "a", repo: "a/b", readonly: true },
      path: "",
    },
    {
      name: "a fractional protocol",
      method: "hello",
      params: { protocol: 1.5, client: { name: "x", version: "1" } },
      path: "protocol",
    },
    { name: "a hello without client", method: "hello", params: { protocol: 1 }, path: "client" },
    {
      name: "an absolute URL as path",
      method: "rest",
      params: { sessionId: "s", method: "GET", path: "https://evil/x" },
      path: "path",
    },
    {
      name: "an unknown HTTP method",
      method: "rest",
      params: { sessionId: "s", method: "TRACE", path: "/x" },
      path: "method",
    },
    {
      name: "an unknown priority",
      method: "graphql",
      params: { sessionId: "s", query: "{a}", priority: "urgent" },
      path: "priority",
    },
    { name: "an empty query", method: "graphql", params: { sessionId: "s", query: "" }, path: "query" },
    {
      name: "a bad topic pattern",
      method: "events.subscribe",
      params: { topics: ["a.*.b"] },
      path: "topics.0",
    },
    { name: "params on an empty method", method: "stats", params: { verbose: true }, path: "" },
  ] as const)("rejects $name at its path", ({ method, params, path }) => {
    const result = paramsSchemas[method].safeParse(params);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join("."))).toContain(path);
  });
});
