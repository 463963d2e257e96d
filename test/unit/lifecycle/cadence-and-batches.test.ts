import { describe, expect, it } from "vitest";
import { resolveLifecycleConfig } from "../../../lifecycle/config.js";
import {
  budgetDecision,
  prPollInterval,
  restAllowedPerCycle,
  webhookStretch,
} from "../../../lifecycle/core/cadence.js";
import { planRefreshBatches } from "../../../lifecycle/core/refresh-batches.js";
import { T0 } from "./support/facts.js";

const CADENCE = {
  activeIntervalMs: 10_000,
  quietIntervalMs: 60_000,
  idleIntervalMs: 120_000,
  idleAfterMs: 600_000,
};
const targets = (n: number, from = 1) =>
  Array.from({ length: n }, (_, i) => ({ repo: "acme/widgets", number: from + i }));

describe("cadence", () => {
  it.each([
    { name: "CI running", subject: { ciStatus: "pending" as const, lastChangeAt: T0 - 10 ** 7 }, ms: 10_000 },
    {
      name: "changed 5 min ago",
      subject: { ciStatus: "passing" as const, lastChangeAt: T0 - 300_000 },
      ms: 60_000,
    },
    {
      name: "quiet 20 min",
      subject: { ciStatus: "failing" as const, lastChangeAt: T0 - 1_200_000 },
      ms: 120_000,
    },
    {
      name: "quiet 20 min but read by an agent 30 s ago",
      subject: { ciStatus: "passing" as const, lastChangeAt: T0 - 1_200_000, readByAgentsAt: T0 - 30_000 },
      ms: 10_000,
    },
    {
      name: "quiet 20 min, last read by an agent 2 min ago",
      subject: { ciStatus: "passing" as const, lastChangeAt: T0 - 1_200_000, readByAgentsAt: T0 - 120_000 },
      ms: 120_000,
    },
  ])("$name → $ms ms", ({ subject, ms }) => {
    expect(prPollInterval(subject, T0, CADENCE)).toBe(ms);
  });

  it.each([
    {
      name: "unknown budget: no limit",
      budget: undefined,
      spend: 9_999,
      stretch: 1,
      allowed: Number.POSITIVE_INFINITY,
    },
    {
      name: "plenty left",
      budget: { remaining: 4_000, resetAt: T0 + 3_600_000 },
      spend: 100,
      stretch: 1,
      allowed: 3_500,
    },
    {
      name: "spend would cross the reserve: stretched",
      budget: { remaining: 1_000, resetAt: T0 + 3_600_000 },
      spend: 1_500,
      stretch: 3,
      allowed: 500,
    },
    {
      name: "stretch is capped",
      budget: { remaining: 600, resetAt: T0 + 3_600_000 },
      spend: 100_000,
      stretch: 6,
      allowed: 100,
    },
    {
      name: "at the reserve: nothing",
      budget: { remaining: 500, resetAt: T0 + 60_000 },
      spend: 0,
      stretch: 6,
      allowed: 0,
    },
  ])("budget: $name", ({ budget, spend, stretch, allowed }) => {
    const decision = budgetDecision({
      budget: { graphql: budget },
      now: T0,
      spendPerHour: spend,
      restSpendPerHour: 0,
      reservePoints: 500,
      reserveRest: 500,
      maxStretch: 6,
    });
    expect(decision.stretch).toBeCloseTo(stretch);
    expect(decision.pointsAllowed).toBe(allowed);
  });

  it("stretches for the REST bucket too, taking the larger need of the two", () => {
    const decision = budgetDecision({
      budget: {
        graphql: { remaining: 4_000, resetAt: T0 + 3_600_000 },
        core: { remaining: 1_500, resetAt: T0 + 3_600_000 },
      },
      now: T0,
      spendPerHour: 100,
      restSpendPerHour: 2_000,
      reservePoints: 500,
      reserveRest: 500,
      maxStretch: 6,
    });
    expect(decision.stretch).toBeCloseTo(2);
    expect(decision.pointsAllowed).toBe(3_500);
  });

  it("caps REST guards per cycle from a per-minute cap", () => {
    expect(restAllowedPerCycle(600, 10_000)).toBe(100);
    expect(restAllowedPerCycle(1, 10)).toBe(1);
  });
});

describe("webhookStretch", () => {
  const options = { stretch: 6, liveMs: 120_000 };
  it.each([
    { name: "no delivery yet: normal polling", last: null, now: T0, stretch: 6, factor: 1 },
    { name: "a delivery just now: guards are a backstop", last: T0, now: T0 + 1_000, stretch: 6, factor: 6 },
    { name: "the last delivery just inside the bound", last: T0, now: T0 + 119_999, stretch: 6, factor: 6 },
    {
      name: "deliveries stopped: polling returns to normal",
      last: T0,
      now: T0 + 120_000,
      stretch: 6,
      factor: 1,
    },
    { name: "stretch 1 turns it off", last: T0, now: T0 + 1_000, stretch: 1, factor: 1 },
  ])("$name", ({ last, now, stretch, factor }) => {
    expect(webhookStretch(last, now, { ...options, stretch })).toBe(factor);
  });
});

describe("refresh batches", () => {
  it("packs k PRs into ceil(k/25) batches and fills the last one for free", () => {
    const plan = planRefreshBatches({
      required: targets(30),
      fillers: targets(40, 100),
      batchSize: 25,
      maxBatches: 10,
    });
    expect(plan.batches.map((b) => b.length)).toEqual([25, 25]);
    expect(plan.filled).toBe(20);
    expect(plan.deferred).toEqual([]);
  });

  it("never fills a batch past what it costs unfilled (50 per batch: 3 PRs fill to 37, still 1 point)", () => {
    const plan = planRefreshBatches({
      required: targets(3),
      fillers: targets(100, 100),
      batchSize: 50,
      maxBatches: 10,
    });
    expect(plan.batches[0]).toHaveLength(37);
  });

  it("defers what the budget cannot pay, keeping the most urgent first", () => {
    const plan = planRefreshBatches({ required: targets(60), fillers: [], batchSize: 25, maxBatches: 1 });
    expect(plan.batches).toHaveLength(1);
    expect(plan.batches[0]?.[0]?.number).toBe(1);
    expect(plan.deferred.map((t) => t.number)).toEqual(targets(35, 26).map((t) => t.number));
  });

  it("drops duplicates and sends nothing when nothing is required", () => {
    expect(
      planRefreshBatches({
        required: [...targets(2), ...targets(2)],
        fillers: [],
        batchSize: 25,
        maxBatches: 9,
      }).batches,
    ).toEqual([targets(2)]);
    expect(planRefreshBatches({ required: [], fillers: targets(5), batchSize: 25, maxBatches: 9 })).toEqual({
      batches: [],
      deferred: [],
      filled: 0,
    });
  });
});

describe("lifecycle config", () => {
  it("fills defaults and freezes", () => {
    const config = resolveLifecycleConfig({ enrichmentBatchSize: 37 });
    expect(config.enrichmentBatchSize).toBe(37);
    expect(config.cycleIntervalMs).toBe(10_000);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it.each([
    { input: { enrichmentBatchSize: 51 }, message: /enrichmentBatchSize: expected a number from 1 to 50/ },
    { input: { cycleIntervalMs: Number.NaN }, message: /cycleIntervalMs/ },
    { input: { fillBatches: "yes" }, message: /fillBatches: expected true or false/ },
    { input: { nope: 1 }, message: /nope: unknown option/ },
  ])("names the field it refuses: $message", ({ input, message }) => {
    expect(() => resolveLifecycleConfig(input as never)).toThrow(message);
  });
});
