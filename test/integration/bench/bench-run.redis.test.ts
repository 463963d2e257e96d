/**
 * A tiny bench end to end: the three arms at two active sessions on the real simulator, a real
 * broker on a private redis-server, seconds of wall time (60 simulated seconds at ×60).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BenchReport, runBench } from "../../../bench/index.js";
import { CACHE_RESULTS } from "../../../broker/pipeline/types.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

describe("runBench", () => {
  let redis: TestRedis;
  let report: BenchReport;

  beforeAll(async () => {
    redis = await startTestRedis();
    report = (
      await runBench({
        arms: ["direct", "proxy", "broker"],
        sessions: [2],
        progress: false,
        redisUrl: redis.url,
        plan: { warmupS: 20, sessionSeconds: 60, minWindowS: 60, maxWindowS: 60, maxScale: 60 },
      })
    ).report;
  }, 90_000);

  afterAll(async () => {
    await redis?.stop();
  });

  it("produces the scorecard's fields for every arm", () => {
    expect(report.runs.map((r) => r.arm)).toEqual(["direct", "proxy", "broker"]);
    for (const run of report.runs) {
      expect(run).toMatchObject({ profile: "active", sessions: 2, windowSeconds: 60, timeScale: 60 });
      for (const key of [
        "graphqlPointsPerHour",
        "restCorePerHour",
        "upstreamRequests",
        "agentRateLimitErrors",
        "addedWaitMs",
        "stalenessMs",
        "pollCycleSeconds",
        "withinBudget",
      ]) {
        expect(run, `${run.arm}.${key}`).toHaveProperty(key);
      }
      expect(run.sessionFailures, `${run.arm}: ${run.reasons.join("; ")}`).toBe(0);
      expect(run.agentRequests).toBeGreaterThan(0);
      expect(run.upstreamRequests).toBeGreaterThan(0);
      // Two sessions in a 60 s window: the broker may serve every read from its cache and its
      // refreshes (spend follows change), so only the arms without a cache must have paid.
      if (run.arm === "broker") expect(run.graphqlPointsPerHour).toBeGreaterThanOrEqual(0);
      else expect(run.graphqlPointsPerHour).toBeGreaterThan(0);
    }
    const points = (arm: string) => report.runs.find((r) => r.arm === arm)?.graphqlPointsPerHour ?? NaN;
    expect(points("broker")).toBeLessThan(points("direct"));
    expect(Object.keys(report.sessionsToBudget).sort()).toEqual(["broker", "direct", "proxy"]);
    expect(report.calibration.directPointsPerHourAt5Active).toBeNull();
  });

  it("labels what the proxy and the broker served, and nothing for direct", () => {
    const [direct, proxy, broker] = report.runs;
    expect(direct?.cache.labelled).toBe(0);
    expect(proxy?.cache.labelled).toBe(proxy?.agentRequests);
    expect(broker?.cache.labelled).toBe(broker?.agentRequests);
    expect(
      Object.keys(broker?.cache.counts ?? {}).every((k) => (CACHE_RESULTS as readonly string[]).includes(k)),
    ).toBe(true);
  });

  it("measures direct answers as fresh and the AO loop's cycle near its 30 s", () => {
    const direct = report.runs[0];
    expect(direct?.answersJudged).toBeGreaterThan(0);
    expect(direct?.stalenessMs.p50).toBe(0);
    expect(direct?.pollCycleSeconds.p50).toBeGreaterThanOrEqual(29);
    expect(direct?.pollCycleSeconds.p50).toBeLessThan(40);
  });

  it("runs the broker as its own process and measures its CPU and memory apart", () => {
    const broker = report.runs[2];
    expect(report.notes.join(" ")).toMatch(/its own process/);
    expect(broker?.broker?.cpuSeconds).toBeGreaterThan(0);
    expect(broker?.broker?.rssMb).toBeGreaterThan(20);
  });

  it("states the method and how the broker's orchestrator ran", () => {
    expect(report.method.join(" ")).toMatch(/compressed/);
    expect(report.notes.some((n) => n.startsWith("broker:"))).toBe(true);
  });
});
