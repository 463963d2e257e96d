/**
 * Issue 17, "a greedy session that starts first takes the window": through the whole broker (real
 * redis-server, the simulator, sessions registered by the shim's own code), a 400-request window
 * compressed to 60 s. A greedy agent loops on uncached reads from t = 0; five modest agents arrive
 * at 8 s and ask once a second for 12 s. Every modest request is answered within 2 s and none is
 * refused; the greedy agent is paced (unpaced it had spent 353 of 360 by then); the same when it
 * registers twenty session ids in its checkout. Wall time ~2 × 21 s.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGreedyScenario } from "../../../bench/greedy-scenario.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop();
});

// Burst max(⌈400 × 0.1⌉, 100) = 100, then 400 per 60 s = 6⅔ a second.
const allowanceAt = (seconds: number) => 100 + (400 * seconds) / 60;

describe("a greedy first-comer and five modest agents on a 400-request window", () => {
  it.each([1, 20])(
    "answers every modest request within 2 s and paces the greedy agent (%i session ids)",
    async (ids) => {
      const result = await runGreedyScenario({ redisUrl: redis.url, prefix: redis.prefix(), greedyIds: ids });
      expect(result.modest.requests).toBeGreaterThanOrEqual(5 * 11);
      expect(result.modest.refused).toBe(0);
      expect(result.modest.within2s).toBe(result.modest.requests);
      // Paced while alone: at most the allowance at 8 s (+1 s of slack for start-up), far from 353.
      expect(result.greedy.spentAtArrival).toBeLessThanOrEqual(allowanceAt(9));
      expect(result.greedy.spentAtArrival).toBeGreaterThan(allowanceAt(0) / 2);
      // Still served afterwards, never refused by GitHub, and the window never spent ahead of its pace.
      expect(result.greedy.answered).toBeGreaterThan(result.greedy.spentAtArrival);
      expect(result.upstream.rateLimited).toBe(0);
      expect(result.upstream.used).toBeLessThanOrEqual(allowanceAt(21));
    },
    90_000,
  );
});
