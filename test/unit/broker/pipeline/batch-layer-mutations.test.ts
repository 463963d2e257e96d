/**
 * The batch layer's write path (decision 0023): GraphQL mutations of different sessions inside
 * one window reach the layer below as ONE request classified as a content-creating mutation that
 * counts each creating member; each caller gets its own part, labelled BATCHED; a lone writer's
 * mutation goes below as written. And a query that reads only immutable facts gets the
 * `immutable` batching window.
 */
import { describe, expect, it } from "vitest";
import { BatchScheduler, MutationBatcher, RepeatTracker } from "../../../../broker/batch/index.js";
import { GraphQLAnalyzer } from "../../../../broker/cache/graphql-analyzer.js";
import { buildApiRequest } from "../../../../broker/pipeline/api-request.js";
import { batchLayer } from "../../../../broker/pipeline/batch-layer.js";
import { classifyRequest } from "../../../../broker/pipeline/classify.js";
import type { Caller, GhRequest, GhResponse } from "../../../../broker/pipeline/types.js";
import { loadGitHubSchema } from "../../../../github/index.js";

const schema = loadGitHubSchema();
const analyzer = new GraphQLAnalyzer({ schema });
const policy = {
  restFreshMs: 10_000,
  graphqlFreshMs: { checks: 10_000, pullRequest: 10_000, issue: 10_000, other: 10_000 },
};
const COMMENT =
  "mutation CommentCreate($input:AddCommentInput!){addComment(input: $input){commentEdge{node{url}}}}";
const LOOKUP = `query PullRequestByNumber($owner: String!, $repo: String!, $pr_number: Int!) {
  repository(owner: $owner, name: $repo) { pullRequest(number: $pr_number) {id,url,number} } }`;

const caller = (sessionId: string): Caller => ({ sessionId, readOnly: false, weight: 1 });
function graphql(sessionId: string, query: string, variables: Record<string, unknown>): GhRequest {
  return buildApiRequest(
    {
      method: "POST",
      path: "/graphql",
      graphql: { query, variables, operationName: undefined },
      caller: caller(sessionId),
      deadlineMs: 20_000,
    },
    (input) => classifyRequest(input, analyzer, policy),
  );
}
const comment = (sessionId: string, pr: string) =>
  graphql(sessionId, COMMENT, { input: { subjectId: pr, body: `from ${sessionId}` } });

/** Below the layer: answers each aliased addComment with its subject, records every request. */
function below() {
  const sent: GhRequest[] = [];
  const handler = async (request: GhRequest): Promise<GhResponse> => {
    sent.push(request);
    const query = request.graphql?.query ?? "";
    const data: Record<string, unknown> = {};
    for (const m of query.matchAll(/(?:(b\d+_)addComment:\s*)?addComment\(/g))
      data[`${m[1] ?? ""}addComment`] = { commentEdge: { node: { url: `u/${m[1] ?? "alone"}` } } };
    return {
      status: 200,
      headers: { "content-type": "application/json" },
      body: Buffer.from(JSON.stringify({ data })),
      cache: "BYPASS",
      cost: 1,
      upstreamCost: 1,
      resource: "graphql",
    };
  };
  return { sent, handler };
}

function layer(windowMs = 30) {
  const { sent, handler } = below();
  const classes: string[] = [];
  const handle = batchLayer({
    repeats: new RepeatTracker(),
    createScheduler: (send) =>
      new BatchScheduler({
        schema,
        send: (request) => {
          classes.push(request.kind);
          return send(request);
        },
        budgetsMs: { immutable: 40, interactive: 0 },
      }),
    createMutationBatcher: (send) =>
      new MutationBatcher({ schema, send, windowMs, busyWithinMs: 10_000, maxMembers: 10 }),
  })(handler);
  return { sent, handle, classes };
}

describe("batchLayer with a write batcher", () => {
  describe("when sessions post comments together", () => {
    it("sends one content-creating mutation counting each member, each caller answered its own part", async () => {
      const { sent, handle } = layer();
      const first = await handle(comment("s0", "PR_0")); // nobody else wrote yet: alone, at once
      expect(first.cache).toBe("BYPASS");
      const answers = await Promise.all([
        handle(comment("s1", "PR_1")),
        handle(comment("s2", "PR_2")),
        handle(comment("s3", "PR_3")),
      ]);
      expect(sent).toHaveLength(2);
      const merged = sent[1] as GhRequest;
      expect(merged.classification).toMatchObject({
        kind: "graphql-mutation",
        contentCreation: true,
        contentCreations: 3,
      });
      expect(merged.graphql?.query.startsWith("mutation AoBrokerBatch(")).toBe(true);
      expect(answers.map((a) => a.cache)).toEqual(["BATCHED", "BATCHED", "BATCHED"]);
      expect(answers.map((a) => JSON.parse(a.body.toString()))).toEqual([
        { data: { addComment: { commentEdge: { node: { url: "u/b0_" } } } } },
        { data: { addComment: { commentEdge: { node: { url: "u/b1_" } } } } },
        { data: { addComment: { commentEdge: { node: { url: "u/b2_" } } } } },
      ]);
      expect(answers.map((a) => a.sharedBy)).toEqual([3, 3, 3]);
      expect(answers.reduce((sum, a) => sum + a.cost, 0)).toBeCloseTo(1, 2);
    });
  });

  describe("when one session writes alone", () => {
    it("passes each of its mutations down as written, at once", async () => {
      const { sent, handle } = layer(60_000);
      for (let i = 0; i < 3; i++) expect((await handle(comment("solo", "PR_1"))).cache).toBe("BYPASS");
      expect(sent.map((r) => r.graphql?.query)).toEqual([COMMENT, COMMENT, COMMENT]);
    });
  });
});

describe("classifyRequest's immutable flag", () => {
  it("marks a read of immutable facts only, and not one that reads a facet", () => {
    const lookup = graphql("s", LOOKUP, { owner: "o", repo: "r", pr_number: 1 });
    const title = graphql("s", LOOKUP.replace("{id,url,number}", "{id,title}"), {
      owner: "o",
      repo: "r",
      pr_number: 1,
    });
    expect(lookup.classification.immutable).toBe(true);
    expect(title.classification.immutable).toBeUndefined();
  });
});
