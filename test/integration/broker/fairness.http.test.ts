/**
 * Issue 3's budget scenario through the whole broker: the simulator allows 20 GraphQL points per
 * 10-second window; five sessions hammer it, one of them greedy (four loops at once). Nobody sees a
 * rate-limit error (calls wait for the refill), nothing is lost, and no session gets less than its
 * fair share −10 % while the greedy one pushes. Real time: two windows, ~23 s.
 */
import { Octokit } from "@octokit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { type BrokerUnderTest, startBrokerUnderTest } from "../../support/broker-harness.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

let redis: TestRedis;
let sim: RunningSimulator;
let broker: BrokerUnderTest;

beforeAll(async () => {
  redis = await startTestRedis();
  sim = await startSimulator({ port: 0, limits: { graphql: 20 }, windowSeconds: 10 });
  broker = await startBrokerUnderTest({
    redisUrl: redis.url,
    prefix: redis.prefix(),
    upstreamUrl: sim.url,
    // Every query is distinct and uncached, so each costs GitHub one point.
    config: {
      batching: { enabled: false },
      cache: { graphqlFreshMs: { checks: 0, pullRequest: 0, issue: 0, other: 0 } },
    },
  });
});
afterAll(async () => {
  await broker?.close();
  await sim?.close();
  await redis?.stop();
});

describe("the budget under contention", () => {
  it("queues five hammering sessions fairly through two windows with no rate-limit error", async () => {
    const sessions = await Promise.all(
      ["s0", "s1", "s2", "s3", "greedy"].map(async (id) => ({
        id,
        client: new Octokit({
          baseUrl: broker.broker.gatewayUrl,
          auth: (await broker.openSession(id)).token,
        }),
      })),
    );
    const served = new Map<string, number>();
    const failures: string[] = [];
    let issued = 0;
    const runFor = 21_000;
    const stopAt = Date.now() + runFor;
    let seq = 0;
    const loop = async (session: (typeof sessions)[number]) => {
      while (Date.now() < stopAt) {
        const n = ++seq;
        issued++;
        const answer = await session.client.request("POST /graphql", {
          query: `query { q${n}: repository(owner: "acme", name: "widgets") { pullRequest(number: ${(n % 3) + 1}) { number } } }`,
        });
        const body = answer.data as {
          data?: Record<string, { pullRequest?: { number: number } }>;
          errors?: { type?: string; message: string }[];
        };
        if (answer.status !== 200 || body.errors)
          failures.push(`${session.id}: ${answer.status} ${JSON.stringify(body.errors)}`);
        else if (body.data?.[`q${n}`]?.pullRequest?.number === (n % 3) + 1 && Date.now() <= stopAt + 1000) {
          served.set(session.id, (served.get(session.id) ?? 0) + 1);
        }
      }
    };
    const loops = sessions.flatMap((s) => (s.id === "greedy" ? [s, s, s, s] : [s])).map(loop);
    await Promise.all(loops);

    expect(failures).toEqual([]);
    expect(sim.stats().requests.rateLimited).toBe(0);
    const counts = sessions.map((s) => served.get(s.id) ?? 0);
    const total = counts.reduce((a, b) => a + b, 0);
    // Every request issued was answered (nothing lost): the loops await each answer.
    expect(issued).toBeGreaterThanOrEqual(total);
    expect(total).toBeGreaterThanOrEqual(30);
    const fair = total / sessions.length;
    for (const count of counts) expect(count).toBeGreaterThanOrEqual(Math.floor(fair * 0.9));
    expect(served.get("greedy") ?? 0).toBeLessThanOrEqual(Math.ceil(fair * 1.1));
  }, 120_000);
});
