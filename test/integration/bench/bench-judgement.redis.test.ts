/**
 * The verdict sees what issue 13 said it could not: a broker that loses agents' writes and a broker
 * that serves reviews stale both fail the step, on the real simulator, a real broker process and a
 * private redis-server. A fast profile (minutes of an agent's life in seconds of simulated time)
 * makes PR creates, merges and reviews happen inside a short window.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_PROFILES, runBench, type StepResult } from "../../../bench/index.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

/** The active profile with its slow parts made fast: work, CI, fixes and reviews take seconds. */
function fastProfile(): unknown {
  const active = structuredClone(BUILTIN_PROFILES.active) as Record<string, Record<string, unknown>>;
  return {
    ...active,
    name: "fast",
    world: {
      ...active.world,
      ciJobs: [{ name: "build", startAfterS: 1, durationS: 4 }],
      ciFailureRate: 0,
      ciFailureRateAfterFix: 0,
      reviewDelayS: { min: 4, max: 8 },
      approveRate: 0.5,
      approveRateAfterFix: 1,
    },
    agents: {
      ...active.agents,
      initialPhase: { work: 0.5, ci: 0, review: 0.5, fix: 0 },
      workS: { min: 3, max: 6 },
      fixS: { min: 3, max: 6 },
      replyToReviewRate: 1,
    },
  };
}

const PLAN = { warmupS: 10, sessionSeconds: 120, minWindowS: 120, maxWindowS: 120, maxScale: 30 };

describe("the verdict judges writes and every fact", () => {
  let redis: TestRedis;
  let dir: string;
  let profile: string;

  beforeAll(async () => {
    redis = await startTestRedis();
    dir = mkdtempSync(join(tmpdir(), "aob-bench-judgement-"));
    profile = join(dir, "fast.json");
    writeFileSync(profile, JSON.stringify(fastProfile()));
  });

  afterAll(async () => {
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const run = async (options: Parameters<typeof runBench>[0]): Promise<readonly StepResult[]> =>
    (
      await runBench({
        profile,
        sessions: [3],
        progress: false,
        redisUrl: redis.url,
        plan: PLAN,
        ...options,
      })
    ).report.runs;

  it("fails a step whose writes the broker refuses (read-only sessions), and passes them directly", async () => {
    const [direct, broker] = await run({
      arms: ["direct", "broker"],
      brokerSessionsReadOnly: true,
      // The first writes come early (sessions born in review merge at once): no warm-up to lose them.
      plan: { ...PLAN, warmupS: 1, sessionSeconds: 300, minWindowS: 300, maxWindowS: 300 },
    });
    expect(direct?.writes.attempted, "direct made writes").toBeGreaterThan(0);
    expect(direct?.writes.failed).toBe(0);
    expect(direct?.reasons.join("; ")).not.toMatch(/writes dropped/);
    expect(broker?.writes.attempted, "the broker's agents tried to write").toBeGreaterThan(0);
    expect(broker?.writes.failed).toBe(broker?.writes.attempted);
    expect(broker?.withinBudget).toBe(false);
    expect(broker?.reasons.join("; ")).toMatch(/writes dropped or refused/);
  }, 120_000);

  it("fails a step whose reviews are served stale (10 min freshness, no lifecycle)", async () => {
    const [direct, broker] = await run({
      arms: ["direct", "broker"],
      // Long enough for an answer to age well past 30 s before the freshness ends.
      plan: { ...PLAN, sessionSeconds: 300, minWindowS: 300, maxWindowS: 300 },
      brokerConfig: {
        cache: {
          restFreshMs: 600_000,
          graphqlFreshMs: { checks: 600_000, pullRequest: 600_000, issue: 600_000, other: 600_000 },
          guardedFreshMs: 600_000,
        },
        lifecycle: { enabled: false },
      },
    });
    expect(direct?.stalenessByFact.reviews?.judged).toBeGreaterThan(0);
    // Direct answers are at most a round trip old (a review landing while the request is in flight).
    expect(direct?.stalenessByFact.reviews?.p99).toBeLessThan(5_000);
    expect(broker?.stalenessByFact.reviews?.judged).toBeGreaterThan(0);
    expect(broker?.stalenessByFact.reviews?.p99).toBeGreaterThan(30_000);
    expect(broker?.withinBudget).toBe(false);
    expect(broker?.reasons.join("; ")).toMatch(/reviews staleness p99/);
  }, 120_000);

  it("reports every kind of fact, the change visibility, writes and points per merged PR", async () => {
    const [direct] = await run({ arms: ["direct"] });
    const kinds = Object.entries(direct?.stalenessByFact ?? {}).filter(([, f]) => f.judged > 0);
    expect(kinds.length, kinds.map(([k]) => k).join(",")).toBeGreaterThanOrEqual(8);
    expect(direct?.changeVisibilityMs.changes).toBeGreaterThan(0);
    expect(direct?.mergedPrs).toBeGreaterThan(0);
    expect(direct?.pointsPerMergedPr).toBeGreaterThan(0);
    expect(direct?.contentCreatingPerHour).toBeGreaterThan(0);
    expect(direct?.imposedWaitMs.p95).toBe(0);
  }, 120_000);
});
