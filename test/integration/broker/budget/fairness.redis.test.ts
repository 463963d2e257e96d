/**
 * Issue 3's fairness scenario at the gate: GitHub allows 20 GraphQL points per 20 s window; five
 * sessions hammer it, one of them with four times the concurrency. Time runs twenty times faster
 * than real time (a sped-up clock shared by the gate and the GitHub bucket), so six windows take
 * about six seconds. Through two brokers sharing one Redis, as in the distributed setup.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BudgetGate } from "../../../../broker/budget/index.js";
import { isAoError } from "../../../../common/index.js";
import { startTestRedis, type TestRedis } from "../../../support/redis.js";
import { spedUpClock } from "./clocks.js";
import { GitHubBucket } from "./github-bucket.js";

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis.stop();
});

describe("fair share under pressure", () => {
  it("gives five hammering sessions equal shares, one greedy with 4× concurrency, with no errors", async () => {
    const clock = spedUpClock(20);
    const windowMs = 20_000;
    const bucket = new GitHubBucket({ limit: 20, windowMs, clock });
    const prefix = redis.prefix();
    const policy = {
      reserve: { lifecycle: 0, interactive: 0 },
      defaultLimits: { graphql: 20 },
      windowMs: { default: windowMs },
      pollMs: 1_000,
      hungryMs: 5_000,
      activeMs: 60_000,
    };
    const brokers = [
      await BudgetGate.create({ redis: redis.url, prefix, clock, policy }),
      await BudgetGate.create({ redis: redis.url, prefix, clock, policy }),
    ];
    const sessions = ["greedy", "a", "b", "c", "d"];
    const perWindow = new Map<number, Map<string, number>>();
    const errors: unknown[] = [];
    let admitted = 0;
    let settled = 0;
    const stopAt = clock.now() + 6.5 * windowMs;

    const loop = async (sessionId: string, broker: BudgetGate): Promise<void> => {
      while (clock.now() < stopAt) {
        try {
          const admission = await broker.admit({
            sessionId,
            priority: "interactive",
            resource: "graphql",
            cost: 1,
            deadlineAt: clock.now() + 3 * windowMs,
          });
          admitted++;
          await clock.sleep(100); // the request's round trip
          const { ok, report, windowIndex } = bucket.charge(1);
          if (ok) {
            const counts = perWindow.get(windowIndex) ?? new Map<string, number>();
            counts.set(sessionId, (counts.get(sessionId) ?? 0) + 1);
            perWindow.set(windowIndex, counts);
          }
          await broker.settle(admission, { cost: ok ? 1 : 0, rateLimit: report });
          settled++;
        } catch (err) {
          if (!isAoError(err)) throw err;
          errors.push(err);
          return;
        }
      }
    };

    const loops: Promise<void>[] = [];
    for (const [i, sessionId] of sessions.entries()) {
      const copies = sessionId === "greedy" ? 4 : 1;
      for (let c = 0; c < copies; c++) loops.push(loop(sessionId, brokers[(i + c) % 2]!));
    }
    await Promise.all(loops);
    await Promise.all(brokers.map((b) => b.close()));

    // Nobody saw an error while waiting, GitHub never refused, nothing was lost.
    expect(errors).toEqual([]);
    expect(bucket.refused).toBe(0);
    expect(settled).toBe(admitted);

    // Full windows only (the last one is cut short by the test's end).
    const windows = [...perWindow.entries()].sort(([a], [b]) => a - b).map(([, counts]) => counts);
    const full = windows.filter((counts) => [...counts.values()].reduce((s, n) => s + n, 0) === 20);
    expect(full.length).toBeGreaterThanOrEqual(5);
    const totals = new Map(
      sessions.map((s) => [s, full.reduce((sum, counts) => sum + (counts.get(s) ?? 0), 0)]),
    );
    const fair = (full.length * 20) / sessions.length;
    for (const [sessionId, total] of totals) {
      expect({ sessionId, total, ok: total >= 0.9 * fair && total <= 1.1 * fair }).toEqual({
        sessionId,
        total,
        ok: true,
      });
    }
  }, 30_000);
});
