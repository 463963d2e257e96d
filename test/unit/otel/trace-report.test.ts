import { describe, expect, it } from "vitest";
import { buildTraceReport, type CallRecord, renderTraceReport } from "../../../otel/index.js";

const NOW = Date.parse("2026-05-01T10:15:00Z");
const MIN = 60_000;

function call(overrides: Partial<CallRecord>): CallRecord {
  return {
    at: NOW - 5 * MIN,
    sessionId: "ta-1",
    command: "gh.pr.view",
    method: "POST",
    path: "/graphql",
    resource: "graphql",
    cost: 1,
    cache: "MISS",
    status: 200,
    durationMs: 100,
    waitedMs: 0,
    batched: false,
    coalesced: false,
    ...overrides,
  };
}

const RECORDS: CallRecord[] = [
  call({ sessionId: "ta-1", command: "gh.pr.checks", cost: 2, at: NOW - 14 * MIN }),
  call({ sessionId: "ta-1", command: "gh.pr.checks", cost: 0, cache: "HIT", at: NOW - 13 * MIN }),
  call({ sessionId: "ta-2", command: "gh.pr.view", cost: 1, at: NOW - 2 * MIN, waitedMs: 1500 }),
  call({
    sessionId: "ta-2",
    command: "gh.run.list",
    resource: "core",
    method: "GET",
    path: "/repos/a/b/actions/runs",
    cost: 1,
  }),
  call({ sessionId: "ta-3", command: "gh.run.view", resource: "core", cost: 0, cache: "REVALIDATED" }),
  call({
    sessionId: "lifecycle",
    command: "ao.lifecycle",
    cost: 0.5,
    cache: "BATCHED",
    batched: true,
    at: NOW - MIN,
  }),
  call({ sessionId: "old", cost: 100, at: NOW - 3 * 3_600_000 }),
];

describe("buildTraceReport", () => {
  describe("when a --since window is given", () => {
    const report = buildTraceReport(RECORDS, { now: NOW, sinceMs: 15 * MIN });

    it("counts only records in the window, with totals per resource", () => {
      expect(report.from).toBe("2026-05-01T10:00:00.000Z");
      expect(report.to).toBe("2026-05-01T10:15:00.000Z");
      expect(report.totals).toEqual({
        requests: 6,
        free: 2,
        cost: { graphql: 3.5, core: 1 },
        charged: 4.5,
        sessions: 4,
        waitedMs: 1500,
      });
    });

    it("orders sessions by what they were charged, with shares", () => {
      expect(report.bySession.map((r) => [r.key, r.charged, r.requests])).toEqual([
        ["ta-1", 2, 2],
        ["ta-2", 2, 2],
        ["lifecycle", 0.5, 1],
        ["ta-3", 0, 1],
      ]);
      expect(report.bySession[0]?.share).toBeCloseTo(2 / 4.5);
      expect(report.bySession[1]?.cost).toEqual({ graphql: 1, core: 1 });
      expect(report.bySession[0]?.free).toBe(1);
    });

    it("breaks down by command, cache result and resource", () => {
      expect(report.byCommand[0]).toMatchObject({ key: "gh.pr.checks", charged: 2, requests: 2 });
      expect(Object.fromEntries(report.byCache.map((r) => [r.key, r.requests]))).toEqual({
        MISS: 3,
        HIT: 1,
        REVALIDATED: 1,
        BATCHED: 1,
      });
      expect(report.byResource.map((r) => r.key)).toEqual(["graphql", "core"]);
    });

    it("buckets the window by minute, including empty minutes", () => {
      expect(report.overTime.bucketMs).toBe(MIN);
      expect(report.overTime.buckets).toHaveLength(16);
      expect(report.overTime.buckets[0]?.start).toBe("2026-05-01T10:00:00.000Z");
      expect(report.overTime.buckets[1]).toMatchObject({ requests: 1, charged: 2 });
      expect(report.overTime.buckets[5]?.requests).toBe(0);
      expect(report.overTime.buckets.reduce((n, b) => n + b.requests, 0)).toBe(6);
    });
  });

  describe("when no window is given", () => {
    it("starts at the earliest record and picks coarser buckets", () => {
      const report = buildTraceReport(RECORDS, { now: NOW });
      expect(report.totals.requests).toBe(7);
      expect(report.from).toBe(new Date(NOW - 3 * 3_600_000).toISOString());
      expect(report.overTime.bucketMs).toBe(15 * MIN);
      expect(report.overTime.buckets.length).toBeLessThanOrEqual(30);
    });
  });

  describe("when there are more rows than --top", () => {
    it("folds the rest into one row so totals still add up", () => {
      const many = Array.from({ length: 30 }, (_, i) => call({ sessionId: `s-${i}`, cost: i }));
      const report = buildTraceReport(many, { now: NOW, top: 5 });
      expect(report.bySession).toHaveLength(6);
      expect(report.bySession[0]?.key).toBe("s-29");
      expect(report.bySession[5]?.key).toBe("(25 more)");
      expect(report.bySession.reduce((n, r) => n + r.charged, 0)).toBe(report.totals.charged);
    });
  });
});

describe("renderTraceReport", () => {
  it("prints totals and one table per breakdown", () => {
    const text = renderTraceReport(buildTraceReport(RECORDS, { now: NOW, sinceMs: 15 * MIN }));
    expect(text).toContain("6 requests from 4 sessions; 2 free; charged: 3.5 graphql, 1 core");
    for (const title of [
      "By session",
      "By command",
      "By cache result",
      "By resource",
      "Over time (1m buckets)",
    ]) {
      expect(text).toContain(title);
    }
    expect(text).toMatch(/ta-1\s+2\s+50%\s+2\s+0\s+44%/);
  });

  it("says so when nothing was recorded", () => {
    expect(renderTraceReport(buildTraceReport([], { now: NOW, sinceMs: MIN }))).toContain(
      "no requests recorded",
    );
  });
});
