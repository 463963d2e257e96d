import { execute, GraphQLError, parse } from "graphql";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  MutationBatcher,
  type MutationOutcome,
  type UpstreamGraphQLRequest,
  type UpstreamReply,
} from "../../../../broker/batch/index.js";
import { loadGitHubSchema } from "../../../../github/index.js";

const schema = loadGitHubSchema();
/** gh 2.23's `gh pr comment` mutation, byte for byte (test/fixtures/gh-2.23-traffic/pr_comment.md). */
const COMMENT_CREATE =
  "mutation CommentCreate($input:AddCommentInput!){addComment(input: $input){commentEdge{node{url}}}}";
const comment = (subjectId: string, body: string) => ({
  query: COMMENT_CREATE,
  variables: { input: { body, subjectId } },
});

/**
 * A GitHub whose world is a list of comments: each `addComment` root field appends one, in the
 * order GitHub runs a mutation's root fields; a subject id starting with "MISSING" is NOT_FOUND.
 */
function fakeGitHub(override?: (request: UpstreamGraphQLRequest) => UpstreamReply | Error | undefined) {
  const world: { subjectId: string; body: string }[] = [];
  const calls: UpstreamGraphQLRequest[] = [];
  const send = async (request: UpstreamGraphQLRequest): Promise<UpstreamReply> => {
    calls.push(request);
    const overridden = override?.(request);
    if (overridden instanceof Error) throw overridden;
    if (overridden) return overridden;
    const rootValue = {
      addComment: ({ input }: { input: { subjectId: string; body: string } }) => {
        if (input.subjectId.startsWith("MISSING"))
          throw new GraphQLError(`Could not resolve to a node with the global id of '${input.subjectId}'`);
        world.push({ subjectId: input.subjectId, body: input.body });
        return { commentEdge: { node: { url: `https://github.com/c/${world.length}?${input.body}` } } };
      },
    };
    const result = await execute({
      schema,
      document: parse(request.query),
      rootValue,
      variableValues: request.variables as Record<string, unknown>,
      operationName: request.operationName,
    });
    return {
      status: 200,
      headers: { "content-type": "application/json", "x-ratelimit-resource": "graphql" },
      body: JSON.stringify(result),
    };
  };
  return { world, calls, send };
}

let batchers: MutationBatcher[];
beforeEach(() => {
  vi.useFakeTimers();
  batchers = [];
});
afterEach(async () => {
  for (const b of batchers) await b.close();
  vi.useRealTimers();
});

/**
 * A batcher that has just seen another session's mutation (`warm`), so the next one opens a
 * window; that first mutation went alone (handed back, never sent by the batcher).
 */
function batcher(github: ReturnType<typeof fakeGitHub>, windowMs = 1000, maxMembers = 10, warm = true) {
  const created = new MutationBatcher({
    schema,
    send: github.send,
    windowMs,
    maxMembers,
    busyWithinMs: 10_000,
  });
  batchers.push(created);
  if (warm) void created.submit({ id: "warm", ...comment("PR_0", "warm") }, WARM);
  return created;
}
const WARM = { sessionId: "warm", mergeKey: "k", priority: "write", headers: {} } as const;

let nextId = 0;
/** Each submission from its own session unless one is named. */
const submit = (
  b: MutationBatcher,
  member: { query: string; variables?: unknown },
  mergeKey = "k",
  sessionId?: string,
) => {
  nextId += 1;
  return b.submit(
    { id: `m${nextId}`, ...member },
    { sessionId: sessionId ?? `s${nextId}`, mergeKey, priority: "write", headers: {} },
  );
};

function answer(outcome: MutationOutcome): unknown {
  if (outcome.kind !== "merged") throw new Error(`expected a merged answer, got ${outcome.kind}`);
  return JSON.parse(outcome.response.body);
}

describe("MutationBatcher", () => {
  describe("when several sessions' mutations arrive within the window", () => {
    it("sends ONE aliased mutation and gives each caller exactly its own answer, in arrival order", async () => {
      const github = fakeGitHub();
      const b = batcher(github);
      const outcomes = [
        submit(b, comment("PR_1", "one")),
        submit(b, comment("PR_2", "two")),
        submit(b, comment("PR_1", "three")),
      ];
      await vi.advanceTimersByTimeAsync(1000);
      const got = await Promise.all(outcomes);
      expect(github.calls).toHaveLength(1);
      expect(github.calls[0]?.query.startsWith("mutation AoBrokerBatch(")).toBe(true);
      expect(github.calls[0]?.query).not.toContain("rateLimit");
      expect(github.world).toEqual([
        { subjectId: "PR_1", body: "one" },
        { subjectId: "PR_2", body: "two" },
        { subjectId: "PR_1", body: "three" },
      ]);
      expect(got.map(answer)).toEqual([
        { data: { addComment: { commentEdge: { node: { url: "https://github.com/c/1?one" } } } } },
        { data: { addComment: { commentEdge: { node: { url: "https://github.com/c/2?two" } } } } },
        { data: { addComment: { commentEdge: { node: { url: "https://github.com/c/3?three" } } } } },
      ]);
      expect(got.every((o) => o.kind === "merged" && o.batchSize === 3)).toBe(true);
      expect(b.stats()).toMatchObject({ submitted: 4, alone: 1, merged: 3, mergedRequests: 1, unsplit: 0 });
    });

    it("gives an error only to the member it names, and the others their comments", async () => {
      const github = fakeGitHub();
      const b = batcher(github);
      const outcomes = [submit(b, comment("PR_1", "ok")), submit(b, comment("MISSING_9", "lost"))];
      await vi.advanceTimersByTimeAsync(1000);
      const [ok, missing] = (await Promise.all(outcomes)).map(answer) as [
        { data: unknown },
        { data: unknown; errors: { path: unknown[]; message: string }[] },
      ];
      expect(github.calls).toHaveLength(1);
      expect(ok).toEqual({
        data: { addComment: { commentEdge: { node: { url: "https://github.com/c/1?ok" } } } },
      });
      expect(missing.data).toEqual({ addComment: null });
      expect(missing.errors.map((e) => e.path)).toEqual([["addComment"]]);
      expect(github.world).toEqual([{ subjectId: "PR_1", body: "ok" }]);
    });

    it("sends as soon as the group is full, without waiting out the window", async () => {
      const github = fakeGitHub();
      const b = batcher(github, 5000, 2);
      const outcomes = [submit(b, comment("PR_1", "a")), submit(b, comment("PR_2", "b"))];
      await vi.advanceTimersByTimeAsync(0);
      expect(github.calls).toHaveLength(1);
      expect((await Promise.all(outcomes)).map((o) => o.kind)).toEqual(["merged", "merged"]);
    });

    it("keeps different merge keys (Accept, GraphQL-Features) in different requests", async () => {
      const github = fakeGitHub();
      const b = batcher(github);
      const outcomes = [submit(b, comment("PR_1", "a"), "x"), submit(b, comment("PR_2", "b"), "y")];
      await vi.advanceTimersByTimeAsync(1000);
      // Each key's group held one member: both go alone, as written, sent by the caller.
      expect((await Promise.all(outcomes)).map((o) => o.kind)).toEqual(["alone", "alone"]);
      expect(github.calls).toHaveLength(0);
    });
  });

  describe("when a mutation finds no partner or cannot be merged", () => {
    it("sends a lone writer's mutations at once: no other session wrote recently", async () => {
      const github = fakeGitHub();
      const b = batcher(github, 1000, 10, false);
      expect(await submit(b, comment("PR_1", "first"), "k", "only")).toEqual({ kind: "alone" });
      expect(await submit(b, comment("PR_1", "second"), "k", "only")).toEqual({ kind: "alone" });
      await vi.advanceTimersByTimeAsync(20_000);
      expect(await submit(b, comment("PR_1", "third"), "k", "other")).toEqual({ kind: "alone" });
      expect(b.pendingCount()).toBe(0);
    });

    it.each([
      { name: "no partner in its window", member: comment("PR_1", "solo") },
      {
        name: "a query, not a mutation",
        member: { query: "query { viewer { login } }" },
      },
      {
        name: "a mutation that fails validation",
        member: { query: "mutation { addComment(input: {}) { nope } }" },
      },
      {
        name: "a mutation whose root fields come through a fragment",
        member: {
          query:
            'mutation M { ...F } fragment F on Mutation { addComment(input: {subjectId: "PR_1", body: "x"}) { clientMutationId } }',
        },
      },
    ])("hands it back to be sent as written ($name)", async ({ member }) => {
      const github = fakeGitHub();
      const b = batcher(github);
      const outcome = submit(b, member);
      await vi.advanceTimersByTimeAsync(1000);
      expect(await outcome).toEqual({ kind: "alone" });
      expect(github.calls).toHaveLength(0);
    });

    it("sends nothing itself with a window of 0", async () => {
      const github = fakeGitHub();
      const b = batcher(github, 0);
      expect(await submit(b, comment("PR_1", "a"))).toEqual({ kind: "alone" });
      expect(github.calls).toHaveLength(0);
    });
  });

  describe("when the merged request fails", () => {
    it("fails every member with the send's error and never sends again", async () => {
      const lost = new Error("write outcome unknown");
      const github = fakeGitHub(() => lost);
      const b = batcher(github);
      const outcomes = [submit(b, comment("PR_1", "a")), submit(b, comment("PR_2", "b"))];
      const settled = Promise.allSettled(outcomes);
      await vi.advanceTimersByTimeAsync(1000);
      const results = await settled;
      expect(results.map((r) => (r.status === "rejected" ? r.reason : r.value))).toEqual([lost, lost]);
      expect(github.calls).toHaveLength(1);
    });

    it("hands GitHub's HTTP error to every member as is, sent once", async () => {
      const github = fakeGitHub(() => ({ status: 502, headers: {}, body: '{"message":"Bad Gateway"}' }));
      const b = batcher(github);
      const outcomes = [submit(b, comment("PR_1", "a")), submit(b, comment("PR_2", "b"))];
      await vi.advanceTimersByTimeAsync(1000);
      const got = await Promise.all(outcomes);
      expect(got.map((o) => o.kind === "merged" && o.response.status)).toEqual([502, 502]);
      expect(github.calls).toHaveLength(1);
    });

    it.each([
      {
        name: "an error without a path",
        body: { data: { b0_addComment: null, b1_addComment: null }, errors: [{ message: "boom" }] },
      },
      { name: "no data", body: { errors: [{ message: "Something went wrong" }] } },
    ])("answers unsplit (it may have run) for $name, and never re-sends", async ({ body }) => {
      const github = fakeGitHub(() => ({ status: 200, headers: {}, body: JSON.stringify(body) }));
      const b = batcher(github);
      const outcomes = [submit(b, comment("PR_1", "a")), submit(b, comment("PR_2", "b"))];
      await vi.advanceTimersByTimeAsync(1000);
      const got = await Promise.all(outcomes);
      expect(got.map((o) => o.kind)).toEqual(["unsplit", "unsplit"]);
      expect(github.calls).toHaveLength(1);
      expect(b.stats().unsplit).toBe(2);
    });
  });

  describe("when it closes", () => {
    it("sends what waits before it finishes", async () => {
      const github = fakeGitHub();
      const b = new MutationBatcher({
        schema,
        send: github.send,
        windowMs: 60_000,
        maxMembers: 10,
        busyWithinMs: 10_000,
      });
      await b.submit({ id: "w", ...comment("PR_0", "w") }, WARM);
      const outcomes = [submit(b, comment("PR_1", "a")), submit(b, comment("PR_2", "b"))];
      await b.close();
      expect((await Promise.all(outcomes)).map((o) => o.kind)).toEqual(["merged", "merged"]);
      expect(github.world).toHaveLength(2);
    });
  });

  describe("when its options are out of range", () => {
    it.each([
      { name: "a negative window", windowMs: -1, maxMembers: 2, busyWithinMs: 0 },
      { name: "no members", windowMs: 10, maxMembers: 0, busyWithinMs: 0 },
      { name: "a negative busy span", windowMs: 10, maxMembers: 2, busyWithinMs: -5 },
    ])("refuses $name", (o) => {
      expect(() => new MutationBatcher({ schema, send: fakeGitHub().send, ...o })).toThrow(RangeError);
    });
  });
});
