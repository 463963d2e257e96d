import { describe, expect, it } from "vitest";
import {
  AnswerBreakdown,
  type AnswerObservation,
  counterBreakdown,
  isUpstreamRead,
  parseCounterSamples,
  queryKeyText,
} from "../../../bench/core/answer-breakdown.js";
import { renderExplainTable } from "../../../bench/core/explain-table.js";
import { report, stepResult } from "./support.js";

const read = (over: Partial<AnswerObservation>): AnswerObservation => ({
  key: "q1",
  bodyHash: "a",
  graphql: true,
  cost: 1,
  cacheLabel: "MISS",
  ...over,
});

describe("AnswerBreakdown", () => {
  it("does not count an answer served stale while the broker refreshes it as a read upstream", () => {
    expect(isUpstreamRead(read({ cost: 0, cacheLabel: "STALE_REVALIDATING" }))).toBe(false);
    expect(isUpstreamRead(read({ cost: 0, cacheLabel: "MISS" }))).toBe(true);
  });

  it("counts a read whose body equals the last one served for the query as identical, by reason", () => {
    const b = new AnswerBreakdown();
    b.observe(read({ bodyHash: "a", reason: "absent" }), true); // first read of q1
    b.observe(read({ bodyHash: "a", cost: 0, cacheLabel: "HIT" }), true); // from the cache: not a read
    b.observe(read({ bodyHash: "a", reason: "moved", cost: 2 }), true); // identical to the HIT before it
    b.observe(read({ bodyHash: "b", reason: "moved" }), true); // changed
    b.observe(read({ key: "q2", bodyHash: "b", reason: "unvouched" }), true); // first of q2
    const s = b.summary();
    expect(s.answers).toBe(5);
    expect(s.upstreamReads).toBe(4);
    expect(s.firstReads).toBe(2);
    expect(s.graphqlPoints).toBe(5);
    expect(s.identicalPoints).toBe(2);
    expect(s.identicalPointsShare).toBe(0.4);
    expect(s.byReason.moved).toEqual({ reads: 2, points: 3, identicalReads: 1, identicalPoints: 2 });
    expect(Object.keys(s.byReason)[0]).toBe("moved"); // sorted by points
  });

  it("names a read without a reason header 'unreported', and counts REST reads without points", () => {
    const b = new AnswerBreakdown();
    b.observe(read({ graphql: false, cost: 1, cacheLabel: "REVALIDATED" }), true);
    b.observe(read({ cost: 0.333, cacheLabel: "BATCHED" }), true);
    const s = b.summary();
    expect(s.byReason.unreported?.reads).toBe(2);
    expect(s.graphqlPoints).toBe(0.333);
  });

  it("remembers warm-up answers as the last served without counting them", () => {
    const b = new AnswerBreakdown();
    b.observe(read({ bodyHash: "a" }), false);
    b.observe(read({ bodyHash: "a", reason: "vouch-old" }), true);
    const s = b.summary();
    expect(s.answers).toBe(1);
    expect(s.firstReads).toBe(0);
    expect(s.identicalPointsShare).toBe(1);
  });

  it("tells cache answers from reads: HIT and STALE at no cost are not reads, anything else is", () => {
    expect(isUpstreamRead({ cost: 0, cacheLabel: "HIT" })).toBe(false);
    expect(isUpstreamRead({ cost: 0, cacheLabel: "STALE" })).toBe(false);
    expect(isUpstreamRead({ cost: 0, cacheLabel: "COALESCED" })).toBe(true);
    expect(isUpstreamRead({ cost: 1, cacheLabel: "HIT" })).toBe(true);
    expect(isUpstreamRead({ cost: 0, cacheLabel: undefined })).toBe(false);
  });

  it("keys a query by method, path, document and variables, whatever the variables' key order", () => {
    const a = queryKeyText("post", "/graphql", { query: "query{x}", variables: { a: 1, b: { c: 2, d: 3 } } });
    const b = queryKeyText("POST", "/graphql", { query: "query{x}", variables: { b: { d: 3, c: 2 }, a: 1 } });
    expect(a).toBe(b);
    expect(queryKeyText("POST", "/graphql", { query: "query{x}", variables: { a: 2 } })).not.toBe(a);
    expect(queryKeyText("GET", "/repos/o/r/pulls/1")).not.toBe(queryKeyText("GET", "/repos/o/r/pulls/2"));
  });
});

const SCRAPE = (refresh: number, moved: number) => `# HELP ao_broker_upstream_reads_total Upstream reads.
# TYPE ao_broker_upstream_reads_total counter
ao_broker_upstream_reads_total{reason="refresh",identical="true"} ${refresh}
ao_broker_upstream_reads_total{reason="moved",identical="false"} ${moved}
ao_broker_upstream_read_points_total{reason="refresh",identical="true"} ${refresh * 2}
ao_broker_upstream_read_points_total{reason="moved",identical="false"} ${moved}
ao_broker_requests_total{route="x"} 99
`;

describe("the broker's counters", () => {
  it("parses just the two counters from a Prometheus text, labels and all", () => {
    const samples = parseCounterSamples(SCRAPE(3, 4));
    expect(samples).toHaveLength(4);
    expect(samples[0]).toEqual({
      name: "ao_broker_upstream_reads_total",
      labels: { reason: "refresh", identical: "true" },
      value: 3,
    });
  });

  it("gives the window's reads and points by reason, refreshes included, as after − before", () => {
    const c = counterBreakdown(parseCounterSamples(SCRAPE(3, 4)), parseCounterSamples(SCRAPE(8, 10)));
    expect(c?.reads).toBe(11);
    expect(c?.points).toBe(16);
    expect(c?.byReason.refresh).toEqual({ reads: 5, points: 10, identicalReads: 5, identicalPoints: 10 });
    expect(c?.identicalPointsShare).toBe(0.625);
  });

  it("counts only GraphQL points: REST requests under resource core are reads, not points", () => {
    const after = parseCounterSamples(
      [
        'ao_broker_upstream_reads_total{reason="revalidate",identical="true",resource="core"} 7',
        'ao_broker_upstream_read_points_total{reason="revalidate",identical="true",resource="core"} 7',
        'ao_broker_upstream_read_points_total{reason="absent",identical="false",resource="graphql"} 2',
      ].join("\n"),
    );
    const c = counterBreakdown([], after);
    expect(c?.reads).toBe(7);
    expect(c?.points).toBe(2);
    expect(c?.identicalPointsShare).toBe(0);
  });

  it("is null for a broker that exports neither counter", () => {
    expect(counterBreakdown([], parseCounterSamples("ao_broker_requests_total 5\n"))).toBeNull();
  });
});

describe("renderExplainTable", () => {
  it("prints each broker step's reasons, points and identical share, and says when the counters are missing", () => {
    const b = new AnswerBreakdown();
    b.observe(read({ bodyHash: "a" }), false);
    b.observe(read({ bodyHash: "a", reason: "moved", cost: 3 }), true);
    const text = renderExplainTable(
      report([
        stepResult({
          arm: "broker",
          explain: { ...b.summary(), brokerMetricsScraped: true, brokerCounters: null },
        }),
      ]),
    );
    expect(text).toMatch(/identical to the last answer: 100% of the points/);
    expect(text).toMatch(/moved\s+1\s+3\s+100%\s+1\s+3/);
    expect(text).toMatch(/exports no ao_broker_upstream_reads_total/);
  });
});
