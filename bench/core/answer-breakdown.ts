/**
 * `--explain` (issue 16): where the broker's GraphQL points go, answer by answer. For every agent
 * answer that read GitHub on the agent's behalf — the broker charged it (`x-ao-broker-cost` > 0)
 * or did not serve it from its cache (an `x-ao-broker-cache` label other than HIT and STALE) — the
 * reason the broker gives (`x-ao-broker-upstream-reason`: absent, moved, unvouched, vouch-old,
 * revalidate, bypass; "unreported" when the broker sends none), and whether the answer's body was
 * identical to the last answer served to ANY agent for the same query (method, path, GraphQL query
 * text and variables). A read that fetched an identical answer was, in hindsight, a re-fetch nobody
 * needed; issue 16 wants their share of the GraphQL points ≤ 15 %.
 *
 * The broker's own refreshes (reason `refresh`), which no agent answer shows, come from its
 * Prometheus counters `ao_broker_upstream_reads_total` / `ao_broker_upstream_read_points_total`
 * (labels reason, identical), read at the start and the end of the window (`counterBreakdown`).
 * Pure: the caller hashes bodies and keys and scrapes /metrics.
 */

/** The reason recorded when the broker sends no `x-ao-broker-upstream-reason`. */
export const UNREPORTED = "unreported";

/** The labels of answers served from the broker's cache (no read upstream on the agent's behalf). */
const CACHE_LABELS = new Set(["HIT", "STALE", "STALE_REVALIDATING"]);

export interface ReasonFigures {
  /** Agent answers (or, from the broker's counters, upstream reads) with this reason. */
  readonly reads: number;
  /** GraphQL points they cost (the broker's own share per answer, `x-ao-broker-cost`). */
  readonly points: number;
  /** Of those, the ones whose answer was identical to the last one served for the same query. */
  readonly identicalReads: number;
  readonly identicalPoints: number;
}

export interface ExplainFigures {
  /** Agent answers observed in the window (broker arm). */
  readonly answers: number;
  /** Answers that read upstream (charged, or not served from the cache). */
  readonly upstreamReads: number;
  /** GraphQL points of those answers. */
  readonly graphqlPoints: number;
  /** Reads whose query no agent had been answered before in the step (nothing to be identical to). */
  readonly firstReads: number;
  readonly identicalReads: number;
  readonly identicalPoints: number;
  /** identicalPoints ÷ graphqlPoints; null when no point was spent. Issue 16's target: ≤ 0.15. */
  readonly identicalPointsShare: number | null;
  /** Per reason (the broker's UPSTREAM_REASONS, broker/cache/core/serve-decision.ts, or "unreported"), sorted by points. */
  readonly byReason: Readonly<Record<string, ReasonFigures>>;
}

export interface BrokerCounterFigures {
  readonly reads: number;
  readonly points: number;
  readonly identicalPoints: number;
  readonly identicalPointsShare: number | null;
  readonly byReason: Readonly<Record<string, ReasonFigures>>;
}

export interface ExplainReport extends ExplainFigures {
  /** Whether the broker's /metrics answered at the window's end. */
  readonly brokerMetricsScraped: boolean;
  /** The broker's own counters over the window, refreshes included; null when it exports none. */
  readonly brokerCounters: BrokerCounterFigures | null;
}

export interface AnswerObservation {
  /** The query's identity: method, path, GraphQL query text and variables (hashed by the caller). */
  readonly key: string;
  /** The answer body's hash. */
  readonly bodyHash: string;
  /** A GraphQL answer (its cost is points); REST answers count as reads with no points. */
  readonly graphql: boolean;
  /** `x-ao-broker-cost`, absent → 0. */
  readonly cost: number;
  readonly cacheLabel?: string | undefined;
  /** `x-ao-broker-upstream-reason`, absent → unreported. */
  readonly reason?: string | undefined;
}

/** Whether an answer read GitHub on the agent's behalf. */
export function isUpstreamRead(answer: Pick<AnswerObservation, "cost" | "cacheLabel">): boolean {
  return answer.cost > 0 || (answer.cacheLabel !== undefined && !CACHE_LABELS.has(answer.cacheLabel));
}

/** A stable text of a query for `key`: object keys sorted at every level. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

/** The text that identifies "the same query": method, path (with its query string), GraphQL document and variables. */
export function queryKeyText(
  method: string,
  path: string,
  graphql?: { readonly query: string; readonly variables: Readonly<Record<string, unknown>> },
): string {
  const head = `${method.toUpperCase()} ${path}`;
  return graphql ? `${head}\n${graphql.query}\n${stableJson(graphql.variables ?? {})}` : head;
}

const round = (n: number) => Math.round(n * 1000) / 1000;

function emptyFigures(): { reads: number; points: number; identicalReads: number; identicalPoints: number } {
  return { reads: 0, points: 0, identicalReads: 0, identicalPoints: 0 };
}

function sortedByPoints(map: ReadonlyMap<string, ReasonFigures>): Readonly<Record<string, ReasonFigures>> {
  return Object.fromEntries(
    [...map]
      .sort(([a, x], [b, y]) => y.points - x.points || y.reads - x.reads || a.localeCompare(b))
      .map(([reason, f]) => [
        reason,
        { ...f, points: round(f.points), identicalPoints: round(f.identicalPoints) },
      ]),
  );
}

/**
 * Follows every answer served in a step (warm-up included, so "the last answer served" is known
 * when the window opens) and counts those inside the window.
 */
export class AnswerBreakdown {
  readonly #last = new Map<string, string>();
  readonly #byReason = new Map<string, ReturnType<typeof emptyFigures>>();
  #answers = 0;
  #reads = 0;
  #points = 0;
  #first = 0;
  #identicalReads = 0;
  #identicalPoints = 0;

  observe(answer: AnswerObservation, counted: boolean): void {
    const previous = this.#last.get(answer.key);
    this.#last.set(answer.key, answer.bodyHash);
    if (!counted) return;
    this.#answers++;
    if (!isUpstreamRead(answer)) return;
    const points = answer.graphql ? Math.max(0, answer.cost) : 0;
    const identical = previous !== undefined && previous === answer.bodyHash;
    const reason = answer.reason?.trim() || UNREPORTED;
    const figures = this.#byReason.get(reason) ?? emptyFigures();
    figures.reads++;
    figures.points += points;
    this.#reads++;
    this.#points += points;
    if (previous === undefined) this.#first++;
    if (identical) {
      figures.identicalReads++;
      figures.identicalPoints += points;
      this.#identicalReads++;
      this.#identicalPoints += points;
    }
    this.#byReason.set(reason, figures);
  }

  summary(): ExplainFigures {
    return {
      answers: this.#answers,
      upstreamReads: this.#reads,
      graphqlPoints: round(this.#points),
      firstReads: this.#first,
      identicalReads: this.#identicalReads,
      identicalPoints: round(this.#identicalPoints),
      identicalPointsShare: this.#points > 0 ? round(this.#identicalPoints / this.#points) : null,
      byReason: sortedByPoints(this.#byReason),
    };
  }
}

export interface CounterSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export const READS_COUNTER = "ao_broker_upstream_reads_total";
export const READ_POINTS_COUNTER = "ao_broker_upstream_read_points_total";

/**
 * The samples of the two counters in a Prometheus text exposition (the rest is skipped). Enough
 * of the format for counters: `name{label="value",...} value`, escapes in label values.
 */
export function parseCounterSamples(
  text: string,
  names = [READS_COUNTER, READ_POINTS_COUNTER],
): CounterSample[] {
  const wanted = new Set(names);
  const out: CounterSample[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0];
    if (!name || !wanted.has(name)) continue;
    let rest = line.slice(name.length);
    const labels: Record<string, string> = {};
    if (rest.startsWith("{")) {
      const re = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/y;
      re.lastIndex = 1;
      let m = re.exec(rest);
      let end = 1;
      while (m) {
        labels[m[1] as string] = (m[2] as string).replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
        end = re.lastIndex;
        m = re.exec(rest);
      }
      if (rest[end] !== "}") continue;
      rest = rest.slice(end + 1);
    }
    const value = Number(rest.trim().split(/\s+/)[0]);
    if (Number.isFinite(value)) out.push({ name, labels, value });
  }
  return out;
}

const truthy = (v: string | undefined) => v === "true" || v === "1" || v === "yes";

/**
 * The broker's counters over a window: after − before, per reason. Null when the broker exports
 * neither counter (an older broker).
 */
export function counterBreakdown(
  before: readonly CounterSample[],
  after: readonly CounterSample[],
): BrokerCounterFigures | null {
  if (!after.some((s) => s.name === READS_COUNTER || s.name === READ_POINTS_COUNTER)) return null;
  const id = (s: CounterSample) =>
    `${s.name}|${Object.entries(s.labels)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${v}`)
      .join(",")}`;
  const start = new Map(before.map((s) => [id(s), s.value]));
  const byReason = new Map<string, ReturnType<typeof emptyFigures>>();
  let reads = 0;
  let points = 0;
  let identicalPoints = 0;
  for (const sample of after) {
    // A counter that went down was reset (the broker restarted): count from zero.
    const was = start.get(id(sample)) ?? 0;
    const delta = sample.value >= was ? sample.value - was : sample.value;
    if (delta === 0) continue;
    const reason = sample.labels.reason || UNREPORTED;
    const identical = truthy(sample.labels.identical);
    const figures = byReason.get(reason) ?? emptyFigures();
    if (sample.name === READS_COUNTER) {
      figures.reads += delta;
      if (identical) figures.identicalReads += delta;
      reads += delta;
    } else if (!sample.labels.resource || sample.labels.resource === "graphql") {
      // GraphQL points only: the same counter carries REST requests under resource "core".
      figures.points += delta;
      if (identical) figures.identicalPoints += delta;
      points += delta;
      if (identical) identicalPoints += delta;
    }
    byReason.set(reason, figures);
  }
  return {
    reads,
    points: round(points),
    identicalPoints: round(identicalPoints),
    identicalPointsShare: points > 0 ? round(identicalPoints / points) : null,
    byReason: sortedByPoints(byReason),
  };
}
