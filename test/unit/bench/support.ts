/** Builders for bench report fixtures used by the scorecard, plot and JSON-shape tests. */
import { expect } from "vitest";
import { type BenchReport, type StepResult, unmeasuredFigures } from "../../../bench/core/report-types.js";

export function stepResult(over: Partial<StepResult> = {}): StepResult {
  return {
    arm: "direct",
    profile: "active",
    sessions: 5,
    windowSeconds: 600,
    warmupSeconds: 60,
    timeScale: 60,
    realSeconds: 10,
    stepSeconds: 14,
    graphqlPointsPerHour: 9572,
    restCorePerHour: 512,
    graphqlPointsCharged: 1595,
    restCoreCharged: 85,
    graphqlPointsRefused: 0,
    restCoreRefused: 0,
    upstreamRequests: 1400,
    upstreamNotModified: 80,
    upstreamSecondaryLimited: 0,
    agentRequests: 1300,
    agentRequestsPerWallSecond: 130,
    agentCommands: 700,
    agentRateLimitErrors: 0,
    agentOtherErrors: 0,
    agentErrorsByOperation: {},
    addedWaitMs: { p50: 2, p95: 15, p99: 40 },
    stalenessMs: { p50: 0, p99: 0 },
    answersJudged: 500,
    answersStale: 0,
    answersUnknown: 0,
    pollCycleSeconds: { p50: 30, p95: 31 },
    cache: { labelled: 0, counts: {}, hitRatio: null, coalescedRatio: null, batchedRatio: null },
    broker: null,
    benchProcess: { cpuSeconds: 3, cpuPercent: 30, rssMb: 200, eventLoopLagP95Ms: 12 },
    redisCpuSeconds: null,
    withinBudget: false,
    reasons: ["GraphQL 9,572 pts/h > 5,000"],
    upstreamByOperation: { PullRequestByNumber: 900 },
    upstreamRestByOperation: {},
    commandsByName: { "pr checks": 300 },
    sessionFailures: 0,
    ...unmeasuredFigures(),
    ...over,
  };
}

export function report(runs: StepResult[], over: Partial<BenchReport> = {}): BenchReport {
  return {
    tool: "ao-broker bench",
    startedAt: "2026-11-29T20:00:00.000Z",
    finishedAt: "2026-11-29T20:04:00.000Z",
    machine: { cpus: 2 },
    command: "ao-broker bench --quick",
    options: { profile: "active" },
    method: ["compressed"],
    runs,
    sessionsToBudget: { direct: 2, broker: 80 },
    sessionsToBudgetBound: { direct: "exact", broker: "at-least" },
    calibration: { target: 9572, tolerance: 0.25, directPointsPerHourAt5Active: 9572, withinTolerance: true },
    notes: ["broker: a note"],
    ceiling: null,
    ofCeiling: {},
    realGh: null,
    ...over,
  };
}

/** A minimal XML well-formedness check: balanced tags, quoted attributes, no raw '<' or '&' in text. */
export function assertWellFormed(xml: string): void {
  const stack: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  let last = 0;
  for (const m of xml.matchAll(tag)) {
    const text = xml.slice(last, m.index);
    expect(text, `stray markup before ${m[0]}`).not.toMatch(/[<>]|&(?!#\d+;|amp;|lt;|gt;|quot;)/);
    last = (m.index ?? 0) + m[0].length;
    const [, closing, name, , selfClosing] = m;
    if (selfClosing) continue;
    if (closing) expect(stack.pop(), `closing </${name}>`).toBe(name);
    else stack.push(name as string);
  }
  expect(xml.slice(last).trim()).toBe("");
  expect(stack).toEqual([]);
}
