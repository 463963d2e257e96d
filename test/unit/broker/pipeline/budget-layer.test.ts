/**
 * The budget layer answers with typed results: when the request context says a stale answer is
 * available and the budget would wait, it returns a `wouldWait` response (no exception, nothing
 * sent, nothing charged); coalescing hands that only to followers that have a stale answer too,
 * and the cost-sharing list the layers below see is a frozen snapshot.
 */
import { describe, expect, it } from "vitest";
import { GraphQLAnalyzer } from "../../../../broker/cache/graphql-analyzer.js";
import { buildApiRequest } from "../../../../broker/pipeline/api-request.js";
import { budgetLayer } from "../../../../broker/pipeline/budget-layer.js";
import { classifyRequest } from "../../../../broker/pipeline/classify.js";
import { coalesceLayer } from "../../../../broker/pipeline/coalesce-layer.js";
import {
  type Caller,
  type CostParticipant,
  composeLayers,
  type GhRequest,
  type GhResponse,
  type Handler,
} from "../../../../broker/pipeline/types.js";
import { silentLogger } from "../../../../common/index.js";
import { loadGitHubSchema } from "../../../../github/index.js";
import { RecordingBudget } from "../../../support/fake-ports.js";

const analyzer = new GraphQLAnalyzer({ schema: loadGitHubSchema() });
const policy = {
  restFreshMs: 10_000,
  graphqlFreshMs: { checks: 10_000, pullRequest: 10_000, issue: 10_000, other: 10_000 },
};
const PR1 = "/repos/acme/widgets/pulls/1";

const caller = (sessionId: string): Caller => ({ sessionId, readOnly: false, weight: 1 });

function read(sessionId: string, context: Partial<GhRequest> = {}): GhRequest {
  const request = buildApiRequest(
    { method: "GET", path: PR1, caller: caller(sessionId), deadlineMs: 20_000 },
    (input) => classifyRequest(input, analyzer, policy),
  );
  return { ...request, ...context };
}

/** The terminal handler: counts sends, optionally held until `release()`. */
function terminal() {
  const sent: GhRequest[] = [];
  let open: () => void = () => undefined;
  let gate: Promise<void> | undefined;
  const handler: Handler = async (request) => {
    sent.push(request);
    if (gate !== undefined) await gate;
    return {
      status: 200,
      headers: { "content-type": "application/json" },
      body: Buffer.from('{"number":1}'),
      cache: "MISS",
      cost: 1,
      upstreamCost: 1,
      resource: "core",
    } satisfies GhResponse;
  };
  return {
    sent,
    handler,
    hold() {
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
    },
    release: () => open(),
  };
}

describe("budgetLayer", () => {
  describe("when a stale answer is available and the budget would wait", () => {
    it("returns a wouldWait response with the budget's retry time, sends nothing and charges nothing", async () => {
      const budget = new RecordingBudget();
      const retryAt = Date.now() + 60_000;
      budget.wouldWaitUntil = retryAt;
      const upstream = terminal();
      const handler = budgetLayer(budget)(upstream.handler);
      const response = await handler(read("s1", { staleAvailable: true }));
      expect(response.wouldWait).toEqual({ retryAt });
      expect(response.cost).toBe(0);
      expect(response.body.length).toBe(0);
      expect(upstream.sent).toHaveLength(0);
      expect(budget.settled).toEqual([]);
    });
  });

  describe("when a stale answer is available and the budget admits at once", () => {
    it("sends the request and settles its cost, with no wouldWait", async () => {
      const budget = new RecordingBudget();
      budget.wouldWaitUntil = Date.now() - 1;
      const upstream = terminal();
      const response = await budgetLayer(budget)(upstream.handler)(read("s1", { staleAvailable: true }));
      expect(response.wouldWait).toBeUndefined();
      expect(response.status).toBe(200);
      expect(upstream.sent).toHaveLength(1);
      expect(budget.settled).toEqual([1]);
    });
  });

  describe("when no stale answer is available", () => {
    it("waits for admission (admit, not tryAdmit) and never answers wouldWait", async () => {
      const budget = new RecordingBudget();
      budget.wouldWaitUntil = Date.now() + 60_000;
      let tried = 0;
      const tryAdmit = budget.tryAdmit.bind(budget);
      budget.tryAdmit = (request) => {
        tried++;
        return tryAdmit(request);
      };
      const upstream = terminal();
      const response = await budgetLayer(budget)(upstream.handler)(read("s1"));
      expect(response.wouldWait).toBeUndefined();
      expect(tried).toBe(0);
      expect(upstream.sent).toHaveLength(1);
    });
  });

  describe("when a budget error is real", () => {
    it("rejects with it (errors stay errors)", async () => {
      const budget = new RecordingBudget();
      budget.spent = () => new Error("gate failed");
      const upstream = terminal();
      await expect(
        budgetLayer(budget)(upstream.handler)(read("s1", { staleAvailable: true })),
      ).rejects.toThrow("gate failed");
      expect(upstream.sent).toHaveLength(0);
    });
  });
});

describe("coalescing above the budget layer", () => {
  const pipeline = (budget: RecordingBudget, upstream: Handler) =>
    composeLayers([coalesceLayer({ logger: silentLogger() }), budgetLayer(budget)], upstream);

  it("gives a follower without a stale answer a real answer after waiting, never the leader's wouldWait", async () => {
    const budget = new RecordingBudget();
    budget.wouldWaitUntil = Date.now() + 60_000;
    const upstream = terminal();
    const handler = pipeline(budget, upstream.handler);
    // The leader has a stale answer; the followers join its flight before it settles.
    const leader = handler(read("s1", { staleAvailable: true }));
    const staleFollower = handler(read("s2", { staleAvailable: true }));
    const plainFollower = handler(read("s3"));
    const [a, b, c] = await Promise.all([leader, staleFollower, plainFollower]);
    expect(a.wouldWait).toBeDefined();
    expect(b.wouldWait).toBeDefined();
    expect(c.wouldWait).toBeUndefined();
    expect(c.status).toBe(200);
    expect(c.body.toString()).toBe('{"number":1}');
    // Only the plain follower went on, alone, through the waiting admit.
    expect(upstream.sent).toHaveLength(1);
    expect(upstream.sent[0]?.caller.sessionId).toBe("s3");
    expect(budget.attributed.get("s3")).toBe(1);
    expect(budget.attributed.has("s1")).toBe(false);
  });

  it("shows the layers below a frozen participants() snapshot and splits the cost among everyone who joined before settling", async () => {
    const budget = new RecordingBudget();
    const upstream = terminal();
    upstream.hold();
    const handler = pipeline(budget, upstream.handler);
    const first = handler(read("s1"));
    await new Promise((r) => setTimeout(r, 5));
    expect(upstream.sent).toHaveLength(1);
    const sharing = upstream.sent[0]?.sharing;
    const before = sharing?.participants() ?? [];
    expect(before.map((p) => p.sessionId)).toEqual(["s1"]);
    expect(Object.isFrozen(before)).toBe(true);
    expect(() => (before as CostParticipant[]).push({ sessionId: "x", basis: 1 })).toThrow(TypeError);
    // A follower joins while the call is in flight: the earlier snapshot does not change under
    // its reader, a new one shows the follower.
    const second = handler(read("s2"));
    await new Promise((r) => setTimeout(r, 5));
    expect(before.map((p) => p.sessionId)).toEqual(["s1"]);
    expect(sharing?.participants().map((p) => p.sessionId)).toEqual(["s1", "s2"]);
    upstream.release();
    const [a, b] = await Promise.all([first, second]);
    expect(a.cache).toBe("MISS");
    expect(b.cache).toBe("COALESCED");
    expect(upstream.sent).toHaveLength(1);
    expect(budget.attributed.get("s1")).toBeCloseTo(0.5, 6);
    expect(budget.attributed.get("s2")).toBeCloseTo(0.5, 6);
  });
});
