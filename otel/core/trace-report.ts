/**
 * `ao-broker trace report`: who burned the budget. Pure aggregation of CallRecords into totals and
 * breakdowns by session, command, cache result and resource, plus a time series, and a plain-text
 * table renderer. The JSON shape (`TraceReport`, version 1) is what `--json` prints; keep it
 * backwards compatible (add fields, never rename).
 *
 * Cost units differ per GitHub bucket (GraphQL points, REST requests), so every row carries its
 * cost per resource; `charged` is their sum, used only for ordering and shares.
 */
import type { CallRecord } from "./call-record.js";
import { formatDurationMs } from "./duration.js";

export interface TraceReportOptions {
  /** Epoch ms; the report's end. */
  readonly now: number;
  /** Only records received in the last `sinceMs` (all records when absent). */
  readonly sinceMs?: number | undefined;
  /** Width of a time bucket. @defaultValue the smallest of 1m, 5m, 15m, 1h, 6h, 1d giving ≤ 30 buckets */
  readonly bucketMs?: number | undefined;
  /** Rows kept per breakdown; the rest are folded into one "(N more)" row. @defaultValue 20 */
  readonly top?: number | undefined;
}

export interface TraceReportRow {
  readonly key: string;
  readonly requests: number;
  /** Requests that cost this caller nothing (cache hits, 304s, stale answers). */
  readonly free: number;
  /** Charged cost per resource: { graphql: points, core: requests, ... }. */
  readonly cost: Readonly<Record<string, number>>;
  /** Sum of `cost` over resources. */
  readonly charged: number;
  /** Share of all charged cost in the report, 0..1. */
  readonly share: number;
  readonly waitedMs: number;
}

export interface TraceReportBucket {
  /** ISO start of the bucket. */
  readonly start: string;
  readonly requests: number;
  readonly cost: Readonly<Record<string, number>>;
  readonly charged: number;
}

export interface TraceReport {
  readonly version: 1;
  readonly from: string;
  readonly to: string;
  readonly totals: {
    readonly requests: number;
    readonly free: number;
    readonly cost: Readonly<Record<string, number>>;
    readonly charged: number;
    readonly sessions: number;
    readonly waitedMs: number;
  };
  readonly byResource: readonly TraceReportRow[];
  readonly bySession: readonly TraceReportRow[];
  readonly byCommand: readonly TraceReportRow[];
  readonly byCache: readonly TraceReportRow[];
  readonly overTime: { readonly bucketMs: number; readonly buckets: readonly TraceReportBucket[] };
}

const BUCKET_CHOICES_MS = [60_000, 300_000, 900_000, 3_600_000, 21_600_000, 86_400_000];
const MAX_BUCKETS = 30;
const HARD_MAX_BUCKETS = 1000;

interface Accumulator {
  requests: number;
  free: number;
  cost: Record<string, number>;
  charged: number;
  waitedMs: number;
}

function emptyAccumulator(): Accumulator {
  return { requests: 0, free: 0, cost: {}, charged: 0, waitedMs: 0 };
}

function add(acc: Accumulator, record: CallRecord): void {
  acc.requests += 1;
  if (record.cost === 0) acc.free += 1;
  acc.cost[record.resource] = (acc.cost[record.resource] ?? 0) + record.cost;
  acc.charged += record.cost;
  acc.waitedMs += record.waitedMs;
}

function merge(into: Accumulator, from: Accumulator): void {
  into.requests += from.requests;
  into.free += from.free;
  for (const [resource, cost] of Object.entries(from.cost))
    into.cost[resource] = (into.cost[resource] ?? 0) + cost;
  into.charged += from.charged;
  into.waitedMs += from.waitedMs;
}

function rows(groups: Map<string, Accumulator>, totalCharged: number, top: number): TraceReportRow[] {
  const sorted = [...groups.entries()].sort(
    ([ka, a], [kb, b]) => b.charged - a.charged || b.requests - a.requests || ka.localeCompare(kb),
  );
  const kept = sorted.slice(0, top);
  const rest = sorted.slice(top);
  if (rest.length > 0) {
    const folded = emptyAccumulator();
    for (const [, acc] of rest) merge(folded, acc);
    kept.push([`(${rest.length} more)`, folded]);
  }
  return kept.map(([key, acc]) => ({
    key,
    requests: acc.requests,
    free: acc.free,
    cost: acc.cost,
    charged: acc.charged,
    share: totalCharged > 0 ? acc.charged / totalCharged : 0,
    waitedMs: acc.waitedMs,
  }));
}

function chooseBucketMs(spanMs: number, requested: number | undefined): number {
  if (requested !== undefined && requested > 0)
    return Math.max(requested, Math.ceil(spanMs / HARD_MAX_BUCKETS));
  for (const choice of BUCKET_CHOICES_MS) if (spanMs / choice <= MAX_BUCKETS) return choice;
  return Math.ceil(spanMs / MAX_BUCKETS);
}

function groupInto(map: Map<string, Accumulator>, key: string, record: CallRecord): void {
  let acc = map.get(key);
  if (acc === undefined) {
    acc = emptyAccumulator();
    map.set(key, acc);
  }
  add(acc, record);
}

export function buildTraceReport(records: Iterable<CallRecord>, options: TraceReportOptions): TraceReport {
  const { now } = options;
  const top = Math.max(1, options.top ?? 20);
  const since = options.sinceMs === undefined ? undefined : now - options.sinceMs;
  const selected: CallRecord[] = [];
  for (const record of records) {
    if (since !== undefined && record.at < since) continue;
    if (record.at > now) continue;
    selected.push(record);
  }
  const earliest = selected.reduce((min, record) => Math.min(min, record.at), now);
  const from = since ?? earliest;
  const totals = emptyAccumulator();
  const sessions = new Map<string, Accumulator>();
  const commands = new Map<string, Accumulator>();
  const caches = new Map<string, Accumulator>();
  const resources = new Map<string, Accumulator>();
  const bucketMs = chooseBucketMs(Math.max(1, now - from), options.bucketMs);
  const firstBucket = Math.floor(from / bucketMs) * bucketMs;
  const bucketCount = Math.floor((now - firstBucket) / bucketMs) + 1;
  const buckets = Array.from({ length: bucketCount }, emptyAccumulator);
  for (const record of selected) {
    add(totals, record);
    groupInto(sessions, record.sessionId, record);
    groupInto(commands, record.command, record);
    groupInto(caches, record.cache, record);
    groupInto(resources, record.resource, record);
    const index = Math.floor((record.at - firstBucket) / bucketMs);
    const bucket = buckets[index];
    if (bucket !== undefined) add(bucket, record);
  }
  return {
    version: 1,
    from: new Date(from).toISOString(),
    to: new Date(now).toISOString(),
    totals: {
      requests: totals.requests,
      free: totals.free,
      cost: totals.cost,
      charged: totals.charged,
      sessions: sessions.size,
      waitedMs: totals.waitedMs,
    },
    byResource: rows(resources, totals.charged, top),
    bySession: rows(sessions, totals.charged, top),
    byCommand: rows(commands, totals.charged, top),
    byCache: rows(caches, totals.charged, top),
    overTime: {
      bucketMs,
      buckets: buckets.map((acc, i) => ({
        start: new Date(firstBucket + i * bucketMs).toISOString(),
        requests: acc.requests,
        cost: acc.cost,
        charged: acc.charged,
      })),
    },
  };
}

function percent(fraction: number): string {
  return `${Math.round(fraction * 100)}%`;
}

/** Columns are right-aligned (numbers) except the first and, when `lastLeft`, the last. */
function table(
  title: string,
  header: readonly string[],
  body: readonly (readonly string[])[],
  lastLeft = false,
): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] ?? "").length)));
  const left = (i: number) => i === 0 || (lastLeft && i === header.length - 1);
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (left(i) ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [title, line(header), ...body.map(line), ""];
}

/** Resources shown as columns: the ones that occur, GraphQL and core first. */
function resourceColumns(report: TraceReport): string[] {
  const seen = Object.keys(report.totals.cost);
  const preferred = ["graphql", "core"].filter((r) => seen.includes(r));
  return [...preferred, ...seen.filter((r) => !preferred.includes(r)).sort()];
}

function breakdown(
  title: string,
  keyHeader: string,
  rowsIn: readonly TraceReportRow[],
  columns: readonly string[],
): string[] {
  return table(
    title,
    [keyHeader, "requests", "free", ...columns, "share", "waited"],
    rowsIn.map((row) => [
      row.key,
      String(row.requests),
      row.requests > 0 ? percent(row.free / row.requests) : "-",
      ...columns.map((c) => String(row.cost[c] ?? 0)),
      percent(row.share),
      formatDurationMs(row.waitedMs),
    ]),
  );
}

/** Plain-text report for a terminal (what `ao-broker trace report` prints without --json). */
export function renderTraceReport(report: TraceReport): string {
  const columns = resourceColumns(report);
  const spent = columns.map((c) => `${report.totals.cost[c] ?? 0} ${c}`).join(", ") || "nothing charged";
  const span = formatDurationMs(Date.parse(report.to) - Date.parse(report.from));
  const out: string[] = [
    `ao-broker trace report: ${report.from} to ${report.to} (${span})`,
    `${report.totals.requests} requests from ${report.totals.sessions} sessions; ${report.totals.free} free; charged: ${spent}`,
    "",
  ];
  if (report.totals.requests === 0) return `${out.join("\n")}no requests recorded in this window\n`;
  out.push(...breakdown("By session", "session", report.bySession, columns));
  out.push(...breakdown("By command", "command", report.byCommand, columns));
  out.push(...breakdown("By cache result", "cache", report.byCache, columns));
  out.push(...breakdown("By resource", "resource", report.byResource, columns));
  const peak = Math.max(1, ...report.overTime.buckets.map((b) => b.charged));
  out.push(
    ...table(
      `Over time (${formatDurationMs(report.overTime.bucketMs)} buckets)`,
      ["start", "requests", "charged", ""],
      report.overTime.buckets.map((b) => [
        b.start.replace(".000Z", "Z"),
        String(b.requests),
        String(b.charged),
        "#".repeat(Math.round((b.charged / peak) * 30)),
      ]),
      true,
    ),
  );
  return out.join("\n");
}
