/**
 * The admission arithmetic exists twice: in Lua (admitBudget-5.lua, the one that decides) and in
 * TypeScript (core/admission.ts, for views, docs and unit tests). This plays a few hundred random
 * operations and, before every admission, computes the TypeScript decision from the state Redis
 * holds at that instant: the two must agree on the outcome and on every number.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GroupedUsage } from "../../../../broker/budget/core/groups.js";
import {
  type Admission,
  BudgetGate,
  claimFloorFor,
  decideAdmission,
  isFairShareExempt,
  reserveFraction,
} from "../../../../broker/budget/index.js";
import type { PriorityClass } from "../../../../broker/pipeline/types.js";
import { startTestRedis, type TestRedis } from "../../../support/redis.js";
import { manualClock } from "./clocks.js";

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis.stop();
});

/** Deterministic PRNG (mulberry32) so a failure can be replayed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CLASSES: PriorityClass[] = ["lifecycle", "interactive", "write", "background"];

describe("admission conformance (Lua vs core)", () => {
  // Seeds 4 and 5 pace the window and put sessions into parent budgets (docs/decisions/0008).
  it.each([1, 2, 3, 4, 5])("agrees on every decision of a random run (seed %i)", async (seed) => {
    const random = rng(seed);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    const T0 = 1_700_000_000_000;
    const clock = manualClock(T0);
    const policy = {
      reserve: { lifecycle: 0.1, interactive: 0.05 },
      defaultLimits: { graphql: 200 },
      windowMs: { default: 600_000 },
      activeMs: 60_000,
      hungryMs: 20_000,
      pollMs: 1_000,
      reservationTtlMs: 90_000,
      claimHeadroom: seed === 3 ? 0 : 2,
      claimFloorFraction: 0.01,
      minRateElapsedMs: 5_000,
      ...(seed >= 4 ? { pace: { burstFraction: 0.15, burstMin: 0, keepFraction: 0.03 } } : {}),
    };
    const groupOf = (sessionId: string): string | undefined =>
      seed >= 4 && ["s1", "s2", "s3"].includes(sessionId) ? "auto:one-agent" : undefined;
    const gate = await BudgetGate.create({ redis: redis.url, prefix: redis.prefix(), clock, policy });
    const sessions = ["s1", "s2", "s3", "s4", "s5", "s6"];
    const weights = new Map(sessions.map((s) => [s, pick([1, 1, 2, 3])]));
    const outstanding: Admission[] = [];
    let compared = 0;
    let admittedCount = 0;
    const reasons = new Set<string>();
    try {
      for (let step = 0; step < 400; step++) {
        const roll = random();
        if (roll < 0.55) {
          const sessionId = pick(sessions);
          const priority = pick(CLASSES);
          const cost = 1 + Math.floor(random() * 6);
          const weight = weights.get(sessionId)!;
          const state = await gate.readState("graphql");
          const self = state.active.find((a) => a.id === sessionId);
          const requester: GroupedUsage = self
            ? { ...self, weight, group: groupOf(sessionId) }
            : {
                id: sessionId,
                weight,
                used: (state.windowSpend.get(sessionId) ?? 0) + (state.held.get(sessionId) ?? 0),
                firstSeenAt: state.now,
                group: groupOf(sessionId),
              };
          const expected = decideAdmission({
            window: state.window,
            reserved: state.reserved,
            requester,
            others: state.active.filter((a) => a.id !== sessionId),
            cost,
            reserveFraction: reserveFraction(priority, policy.reserve),
            exempt: isFairShareExempt(priority),
            now: state.now,
            claims: {
              hungryMs: policy.hungryMs,
              headroom: policy.claimHeadroom,
              floor: claimFloorFor(state.window.limit, policy.claimFloorFraction),
              minRateElapsedMs: policy.minRateElapsedMs,
            },
            pace: gate.policy.pace.burstFraction < 1 ? gate.policy.pace : undefined,
          });
          const got = await gate.tryAdmit({
            sessionId,
            weight,
            priority,
            resource: "graphql",
            cost,
            deadlineAt: 0,
            group: groupOf(sessionId),
          });
          compared++;
          reasons.add(expected.reason);
          expect({ step, admitted: got.admitted }).toEqual({ step, admitted: expected.admitted });
          if (got.admitted) {
            admittedCount++;
            expect(got.admission.reason).toBe(expected.reason);
            outstanding.push(got.admission);
          } else {
            expect(got.reason).toBe(expected.reason);
            expect(got.share).toBeCloseTo(expected.share, 9);
            expect(got.used).toBeCloseTo(expected.used, 9);
            if (expected.reason === "pace") {
              expect(got.retryAt).toBe(expected.retryAt);
              expect(got.earliestAt).toBe(expected.earliestAt);
            }
          }
        } else if (roll < 0.85 && outstanding.length > 0) {
          const admission = outstanding.splice(Math.floor(random() * outstanding.length), 1)[0]!;
          const cost = Math.floor(random() * (admission.cost + 1));
          if (random() < 0.3) {
            const state = await gate.readState("graphql");
            const remaining = Math.max(0, state.window.remaining - cost - Math.floor(random() * 3));
            await gate.settle(admission, {
              cost,
              rateLimit: {
                resource: "graphql",
                limit: state.window.limit,
                remaining,
                used: state.window.limit - remaining,
                reset: Math.ceil(state.window.resetAt / 1000),
              },
            });
          } else {
            await gate.settle(admission, cost);
          }
        } else {
          clock.advance(Math.floor(random() * 30_000));
        }
      }
    } finally {
      await gate.close();
    }
    expect(compared).toBeGreaterThan(150);
    expect(admittedCount).toBeGreaterThan(20);
    // The run must exercise refusals of both kinds and admissions beyond a plain share.
    expect(reasons).toContain("budget");
    expect(reasons).toContain("within-share");
    expect([...reasons].some((r) => r === "fair-share" || r === "surplus")).toBe(true);
    if (seed >= 4) expect(reasons).toContain("pace");
  });
});
