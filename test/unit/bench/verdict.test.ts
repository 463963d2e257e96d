import { describe, expect, it } from "vitest";
import { judgeStep } from "../../../bench/core/verdict.js";

const ok = {
  graphqlPointsPerHour: 4999,
  restCorePerHour: 5000,
  agentRateLimitErrors: 0,
  addedWaitMs: { p95: 1000 },
  stalenessMs: { p99: 30_000 },
};

describe("judgeStep", () => {
  it("passes a step at exactly every limit", () => {
    expect(judgeStep(ok)).toEqual({ withinBudget: true, reasons: [] });
  });

  it.each([
    {
      name: "GraphQL over budget",
      change: { graphqlPointsPerHour: 9572 },
      reason: /GraphQL 9,572 pts\/h > 5,000/,
    },
    { name: "REST over budget", change: { restCorePerHour: 5001 }, reason: /REST 5,001/ },
    { name: "one rate-limit error", change: { agentRateLimitErrors: 1 }, reason: /1 rate-limit errors/ },
    { name: "slow p95", change: { addedWaitMs: { p95: 1001 } }, reason: /added wait p95 1,001 ms/ },
    { name: "stale p99", change: { stalenessMs: { p99: 45_000 } }, reason: /staleness p99 45 s > 30 s/ },
  ])("fails on $name and says why", ({ change, reason }) => {
    const verdict = judgeStep({ ...ok, ...change });
    expect(verdict.withinBudget).toBe(false);
    expect(verdict.reasons.join("; ")).toMatch(reason);
  });

  describe("when a percentile has no samples", () => {
    it("does not fail the step", () => {
      expect(judgeStep({ ...ok, addedWaitMs: { p95: null }, stalenessMs: { p99: null } }).withinBudget).toBe(
        true,
      );
    });
  });
});
