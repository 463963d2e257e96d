/**
 * The stale fallback end to end, on the real budget gate and Redis: with GitHub's bucket spent,
 * a caller that allows stale answers gets the stored answer (STALE) at once, through the budget
 * layer's typed "would wait" (no exception), and that answer is not stored again as fresh; a
 * caller that does not allow stale waits for the budget as before.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { budgetPort } from "../../../broker/budget/budget-port.js";
import { BudgetGate } from "../../../broker/budget/index.js";
import { GraphQLAnalyzer } from "../../../broker/cache/graphql-analyzer.js";
import { classifyRequest } from "../../../broker/pipeline/classify.js";
import { silentLogger } from "../../../common/index.js";
import { loadGitHubSchema } from "../../../github/index.js";
import { CountingUpstream } from "../../support/fake-ports.js";
import { type GatewayStack, rawRequest, startGatewayStack } from "../../support/gateway-harness.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

const PR1 = "/repos/acme/widgets/pulls/1";
const FRESH_MS = 50;

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis.stop();
});

describe("stale fallback with a spent budget", () => {
  let upstream: CountingUpstream;
  let gate: BudgetGate;
  let stack: GatewayStack;
  let token: string;
  const auth = () => ({ authorization: `token ${token}` });
  /** GitHub's report: `remaining` of 10 left until the reset, `resetInS` seconds from now. */
  const spend = (remaining: number, resetInS = 3600) =>
    gate.observe({
      resource: "core",
      limit: 10,
      remaining,
      used: 10 - remaining,
      reset: Math.ceil(Date.now() / 1000) + resetInS,
    });
  /** What the cache holds for PR1 (the key the gateway's classifier gives it). */
  const stored = async () => {
    const c = classifyRequest(
      { method: "GET", path: PR1, headers: {} },
      new GraphQLAnalyzer({ schema: loadGitHubSchema() }),
      { restFreshMs: FRESH_MS, graphqlFreshMs: { checks: 1, pullRequest: 1, issue: 1, other: 1 } },
    );
    return (await stack.cache.lookup(c.cacheKey, c.reads)).answer;
  };

  beforeEach(async () => {
    const prefix = redis.prefix();
    upstream = new CountingUpstream();
    upstream.set(PR1, { body: { number: 1, title: "Add widgets", state: "open" } });
    gate = await BudgetGate.create({
      redis: redis.url,
      prefix,
      policy: {
        reserve: { lifecycle: 0, interactive: 0 },
        defaultLimits: { core: 10, graphql: 10 },
        windowMs: { default: 60_000 },
      },
    });
    stack = await startGatewayStack({
      redisUrl: redis.url,
      prefix,
      upstream,
      budget: budgetPort({ gate, logger: silentLogger() }),
      freshness: { restFreshMs: FRESH_MS },
    });
    token = (await stack.store.open({ id: "s1", repo: "acme/widgets" })).token;
  });
  afterEach(async () => {
    await stack.close();
    await gate.close();
  });

  it("serves STALE to a caller that allows it, without upstream, and does not store it as fresh", async () => {
    const first = await rawRequest(stack.port, { path: PR1, headers: auth() });
    expect(first.headers["x-ao-broker-cache"]).toBe("MISS");
    const before = await stored();
    expect(before).toBeDefined();
    await spend(0);
    await new Promise((r) => setTimeout(r, FRESH_MS * 2));

    const stale = await rawRequest(stack.port, {
      path: PR1,
      headers: { ...auth(), "x-ao-broker-allow-stale": "1" },
    });
    expect(stale.status).toBe(200);
    expect(stale.headers["x-ao-broker-cache"]).toBe("STALE");
    expect(stale.headers["x-ao-broker-cost"]).toBe("0");
    expect(stale.headers["x-ao-broker-upstream-reason"]).toBeUndefined();
    expect(stale.body.equals(first.body)).toBe(true);
    expect(upstream.count(PR1)).toBe(1);
    // Not stored again: the entry is the one the MISS stored, still stale.
    const after = await stored();
    expect(after?.storedAt).toBe(before?.storedAt);
    expect(Date.now() - (after?.storedAt ?? 0)).toBeGreaterThan(FRESH_MS);
    // Nothing left reserved by the refused try.
    const state = await gate.readState("core");
    expect(state.reserved).toBe(0);
    expect(state.inFlight).toBe(0);
  });

  it("makes a caller that does not allow stale wait for the budget, even beside a stale one", async () => {
    await rawRequest(stack.port, { path: PR1, headers: auth() });
    // Spent until a reset soon enough to wait for (within the caller's deadline).
    await spend(0, 3);
    await new Promise((r) => setTimeout(r, FRESH_MS * 2));
    const staleCaller = rawRequest(stack.port, {
      path: PR1,
      headers: { ...auth(), "x-ao-broker-allow-stale": "1" },
    });
    const waiting = rawRequest(stack.port, { path: PR1, headers: auth() });
    const stale = await staleCaller;
    expect(stale.headers["x-ao-broker-cache"]).toMatch(/^(STALE|COALESCED)$/);
    // The budget refills; the waiting caller is admitted and goes upstream (a conditional GET).
    await new Promise((r) => setTimeout(r, 200));
    expect(upstream.count(PR1)).toBe(1);
    await spend(10, 3);
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.headers["x-ao-broker-cache"]).toMatch(/^(MISS|REVALIDATED)$/);
    expect(upstream.count(PR1)).toBe(2);
  });
});
