/**
 * Refresh planning (broker/cache/core/refresh-plan.ts): which registered answers are fetched again
 * after tags moved, and what a replay keeps of the agent's request (never its token or identity,
 * always the headers that make its cache key, so the refresh lands under the agent's key).
 */
import { describe, expect, it } from "vitest";
import {
  parseReplaySpec,
  planRefresh,
  REPLAY_HEADERS,
  type RegistryHit,
  replaySpec,
} from "../../../../broker/cache/core/refresh-plan.js";
import { VARYING_HEADERS } from "../../../../broker/pipeline/classify.js";

const T = 5_000_000;
const rest = replaySpec({ method: "GET", path: "/repos/acme/widgets/pulls/1", headers: {} });
const gql = replaySpec({
  method: "POST",
  path: "/graphql",
  headers: { accept: "application/vnd.github.merge-info-preview+json" },
  graphql: {
    query: 'query Q($n:Int!){repository(owner:"acme",name:"widgets"){pullRequest(number:$n){title}}}',
    variables: { n: 1 },
  },
});

describe("replaySpec", () => {
  it("keeps the cache key's headers and nothing else (no authorization, no cookie)", () => {
    const spec = replaySpec({
      method: "GET",
      path: "/repos/acme/widgets/pulls/1",
      headers: {
        accept: "application/vnd.github+json",
        authorization: "token ghp_secret",
        cookie: "x",
        "x-forwarded-host": "github.example",
        "user-agent": "gh",
      },
    });
    expect(spec).toEqual({
      method: "GET",
      path: "/repos/acme/widgets/pulls/1",
      headers: { accept: "application/vnd.github+json", "x-forwarded-host": "github.example" },
    });
    expect(JSON.stringify(spec)).not.toContain("ghp_secret");
  });

  it("names exactly the headers the cache key varies by", () => {
    expect([...REPLAY_HEADERS].sort()).toEqual([...VARYING_HEADERS].sort());
  });

  it("replays GETs and GraphQL queries only", () => {
    expect(replaySpec({ method: "POST", path: "/repos/acme/widgets/issues", headers: {} })).toBeUndefined();
    expect(gql?.graphql?.variables).toEqual({ n: 1 });
    expect(parseReplaySpec(JSON.stringify(gql))).toEqual(gql);
    expect(parseReplaySpec("{not json")).toBeUndefined();
    expect(parseReplaySpec(JSON.stringify({ method: "DELETE", path: "/x", headers: {} }))).toBeUndefined();
    expect(
      parseReplaySpec(JSON.stringify({ method: "POST", path: "/graphql", headers: {} })),
    ).toBeUndefined();
  });
});

describe("planRefresh", () => {
  const hit = (hashed: string, readAt: number, tags: string[], spec = rest): RegistryHit => ({
    hashed,
    readAt,
    tags,
    ...(spec ? { spec } : {}),
  });

  it("refreshes each key once, GraphQL and REST apart, tags merged", () => {
    const plan = planRefresh(
      [hit("a", T - 1_000, ["t1"]), hit("a", T - 500, ["t2"]), hit("b", T - 2_000, ["t1"], gql)],
      { now: T, recentReadMs: 60_000, maxAnswers: 10 },
    );
    expect(plan.rest).toEqual([{ hashed: "a", spec: rest, tags: ["t1", "t2"] }]);
    expect(plan.graphql.map((p) => p.hashed)).toEqual(["b"]);
    expect(plan.skipped).toBe(0);
  });

  it("leaves out reads older than the window, keys without a replay, and beyond maxAnswers (oldest first)", () => {
    const plan = planRefresh(
      [
        hit("old", T - 60_001, ["t"]),
        { hashed: "noreplay", readAt: T, tags: ["t"] },
        hit("n1", T - 10, ["t"]),
        hit("n2", T - 20, ["t"]),
        hit("n3", T - 30, ["t"]),
      ],
      { now: T, recentReadMs: 60_000, maxAnswers: 2 },
    );
    expect(plan.rest.map((p) => p.hashed)).toEqual(["n1", "n2"]);
    expect(plan.skipped).toBe(3);
  });
});
