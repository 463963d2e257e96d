/**
 * The batching layer tells the scheduler who asks (the caller's session), so a first-time read is
 * held for a partner only when OTHER sessions have been querying (broker/batch partnerHold), and
 * the held reads of two sessions leave as one merged request below the layer.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BatchScheduler, RepeatTracker } from "../../../../broker/batch/index.js";
import { GraphQLAnalyzer } from "../../../../broker/cache/graphql-analyzer.js";
import { buildApiRequest } from "../../../../broker/pipeline/api-request.js";
import { batchLayer } from "../../../../broker/pipeline/batch-layer.js";
import { classifyRequest } from "../../../../broker/pipeline/classify.js";
import type { GhRequest, GhResponse, Handler } from "../../../../broker/pipeline/types.js";
import { loadGitHubSchema } from "../../../../github/index.js";

const schema = loadGitHubSchema();
const analyzer = new GraphQLAnalyzer({ schema });
const policy = {
  restFreshMs: 10_000,
  graphqlFreshMs: { checks: 10_000, pullRequest: 10_000, issue: 10_000, other: 10_000 },
};
const partnerHold = { windowMs: 600, minExpectedPartners: 0.1, rateWindowMs: 60_000, maxEntries: 1_000 };
const QUERY = 'query($n:Int!){repository(owner:"acme",name:"widgets"){pullRequest(number:$n){title}}}';

function query(sessionId: string, n: number): GhRequest {
  return buildApiRequest(
    {
      method: "POST",
      path: "/graphql",
      graphql: { query: QUERY, variables: { n } },
      caller: { sessionId, readOnly: false, weight: 1, command: `gh pr view ${n}` },
      deadlineMs: 60_000,
    },
    (input) => classifyRequest(input, analyzer, policy),
  );
}

/** GitHub below the layer: answers every pullRequest alias the query asks for; counts requests. */
const sent: GhRequest[] = [];
const github: Handler = async (request) => {
  sent.push(request);
  const text = request.graphql?.query ?? "";
  const aliases = [...text.matchAll(/(\w+):\s*repository/g)].map((m) => m[1] as string);
  const data =
    aliases.length > 0
      ? Object.fromEntries(aliases.map((a) => [a, { pullRequest: { title: "t" } }]))
      : { repository: { pullRequest: { title: "t" } } };
  return {
    status: 200,
    headers: { "content-type": "application/json" },
    body: Buffer.from(JSON.stringify({ data })),
    cache: "MISS",
    cost: 1,
    upstreamCost: 1,
    resource: "graphql",
  } satisfies GhResponse;
};

function layer(): Handler {
  return batchLayer({
    repeats: new RepeatTracker({ windowMs: 60_000 }),
    createScheduler: (send) => new BatchScheduler({ schema, send, injectRateLimit: false, partnerHold }),
  })(github);
}

beforeEach(() => {
  vi.useFakeTimers();
  sent.length = 0;
});
afterEach(() => vi.useRealTimers());

async function answered(handler: Handler, request: GhRequest, advanceMs: number): Promise<GhResponse> {
  const pending = handler(request);
  await vi.advanceTimersByTimeAsync(advanceMs);
  return pending;
}

describe("batchLayer with a partner hold", () => {
  describe("when other sessions have been querying", () => {
    it("holds two sessions' first reads and sends them as one merged request", async () => {
      const handler = layer();
      for (let i = 0; i < 10; i += 1) await answered(handler, query(`other${i}`, 100 + i), 600);
      const before = sent.length;
      const a = handler(query("s1", 1));
      await vi.advanceTimersByTimeAsync(300);
      const b = handler(query("s2", 2));
      await vi.advanceTimersByTimeAsync(299);
      expect(sent).toHaveLength(before);
      await vi.advanceTimersByTimeAsync(1);
      const [x, y] = await Promise.all([a, b]);
      expect(sent).toHaveLength(before + 1);
      expect([x.cache, y.cache]).toEqual(["BATCHED", "BATCHED"]);
      expect(JSON.parse(x.body.toString())).toEqual({
        data: { repository: { pullRequest: { title: "t" } } },
      });
    });
  });

  describe("when only the same session has been querying", () => {
    it("keeps the few-ms window", async () => {
      const handler = layer();
      for (let i = 0; i < 20; i += 1) await answered(handler, query("s1", 100 + i), 600);
      const before = sent.length;
      const a = handler(query("s1", 1));
      await vi.advanceTimersByTimeAsync(5);
      expect(sent).toHaveLength(before + 1);
      expect((await a).cache).toBe("MISS");
    });
  });
});
