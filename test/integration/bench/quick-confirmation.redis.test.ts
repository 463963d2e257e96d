/**
 * A quick run's figure is a confirmed one: its short scouting windows only guide the search, and
 * the count it reports passed a step judged on the long window (docs/decisions/0015). Run on the
 * real simulator with the real arms, with windows shrunk so the whole search takes seconds. The
 * broker step's JSON carries the per-answer breakdown (issue 16) in every run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBench } from "../../../bench/index.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

// Scouting windows of 20 simulated seconds, confirmations of 60: the same ratio as quick's 120–300 s against 600 s.
const PLAN = { warmupS: 5, sessionSeconds: 20, minWindowS: 20, maxWindowS: 20, maxScale: 30 };

describe("quick: the count reported is a confirmed one", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it("direct: scouts on short windows, reports only a count a long-window step passed", async () => {
    const { report } = await runBench({
      quick: true,
      arms: ["direct"],
      progress: false,
      plan: PLAN,
      confirmWindowS: 60,
      redisUrl: redis.url,
    });
    const found = report.sessionsToBudget.direct ?? 0;
    expect(
      found,
      JSON.stringify(report.runs.map((r) => [r.tier, r.sessions, r.withinBudget])),
    ).toBeGreaterThan(0);
    const scouts = report.runs.filter((r) => r.tier === "scout");
    const confirmations = report.runs.filter((r) => r.tier === "confirm");
    expect(scouts.length).toBeGreaterThan(0);
    expect(scouts.every((r) => r.windowSeconds === 20)).toBe(true);
    // The reported count passed a step judged on the long window; no scouting step decided it.
    const decisive = confirmations.filter((r) => r.sessions === found);
    expect(decisive.length).toBeGreaterThan(0);
    expect(decisive.every((r) => r.windowSeconds === 60 && r.withinBudget)).toBe(true);
    expect(report.options.confirmPlan).toMatchObject({ fixedWindowS: 60 });
    expect(report.runs.every((r) => r.explain === null)).toBe(true);
  }, 60_000);

  it("broker: every step carries the per-answer breakdown in the JSON", async () => {
    const { report } = await runBench({
      arms: ["broker"],
      sessions: [3],
      progress: false,
      plan: { ...PLAN, minWindowS: 60, maxWindowS: 60 },
      redisUrl: redis.url,
    });
    const [step] = report.runs;
    const explain = step?.explain;
    expect(explain?.answers).toBeGreaterThan(0);
    expect(explain?.upstreamReads).toBeGreaterThan(0);
    expect(explain?.upstreamReads).toBeLessThanOrEqual(explain?.answers ?? 0);
    const byReason = Object.values(explain?.byReason ?? {});
    expect(byReason.reduce((n, f) => n + f.reads, 0)).toBe(explain?.upstreamReads);
    expect(explain?.identicalPointsShare).toBeGreaterThanOrEqual(0);
    expect(explain?.identicalPointsShare).toBeLessThanOrEqual(1);
    // The broker's /metrics was read at the window's ends (its counters, when it has them, come from there).
    expect(explain?.brokerMetricsScraped).toBe(true);
  }, 60_000);
});
