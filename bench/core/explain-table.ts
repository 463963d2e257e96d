/**
 * `--explain`: the per-answer breakdown of every broker step as a table (core/answer-breakdown.ts):
 * per reason, the agent answers that read upstream, their GraphQL points, and how many of them
 * fetched an answer identical to the last one served for the same query; then the broker's own
 * counters (its refreshes included) when it exports them. Pure.
 */
import type { ReasonFigures } from "./answer-breakdown.js";
import type { BenchReport } from "./report-types.js";
import { alignTable } from "./scorecard-table.js";

const num = (n: number): string =>
  Number.isInteger(n) ? n.toLocaleString("en-US") : n.toLocaleString("en-US", { maximumFractionDigits: 1 });
const share = (n: number | null): string => (n === null ? "-" : `${Math.round(n * 100)}%`);

export const EXPLAIN_HEADERS = [
  "reason",
  "reads",
  "GraphQL pts",
  "share of pts",
  "identical reads",
  "identical pts",
] as const;

function rows(byReason: Readonly<Record<string, ReasonFigures>>, total: number): string[][] {
  return Object.entries(byReason).map(([reason, f]) => [
    reason,
    num(f.reads),
    num(f.points),
    share(total > 0 ? f.points / total : null),
    num(f.identicalReads),
    num(f.identicalPoints),
  ]);
}

export function renderExplainTable(report: BenchReport): string {
  const steps = report.runs.filter((r) => r.explain);
  if (steps.length === 0) return "Per-answer breakdown: no broker step ran.";
  const lines = [
    "Per-answer breakdown (broker arm): every agent answer that read GitHub (charged, or not served from the cache), by the reason the broker gave (x-ao-broker-upstream-reason; 'unreported' when it sent none), and how many fetched an answer identical to the last one served for the same query (issue 16: identical ≤ 15 % of the points).",
  ];
  for (const run of steps) {
    const e = run.explain;
    if (!e) continue;
    lines.push(
      "",
      `broker @ ${run.sessions} sessions (${run.windowSeconds} s window${run.tier === "scout" ? ", scouting" : ""}): ` +
        `${num(e.answers)} answers, ${num(e.upstreamReads)} read upstream (${num(e.firstReads)} first of their query), ` +
        `${num(e.graphqlPoints)} GraphQL points; identical to the last answer: ${share(e.identicalPointsShare)} of the points`,
    );
    if (e.upstreamReads > 0) lines.push(alignTable(EXPLAIN_HEADERS, rows(e.byReason, e.graphqlPoints)));
    const c = e.brokerCounters;
    if (c) {
      lines.push(
        `  the broker's counters (its own refreshes included): ${num(c.reads)} upstream reads, ${num(c.points)} points, identical ${share(c.identicalPointsShare)} of the points`,
      );
      if (c.reads > 0 || c.points > 0) lines.push(alignTable(EXPLAIN_HEADERS, rows(c.byReason, c.points)));
    } else {
      lines.push(
        "  the broker exports no ao_broker_upstream_reads_total counter: its own refreshes are not shown",
      );
    }
  }
  return lines.join("\n");
}
