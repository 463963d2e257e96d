/**
 * Per-session accounting that `ao-broker sessions` and the IPC `session.list` show: requests,
 * what reached GitHub, points and requests spent, cache hits, coalesced and batched answers, queue
 * wait percentiles, and the last commands with their cost. Writes are buffered and flushed as one
 * pipeline every 100 ms, so accounting never sits on a request's hot path; a crash loses at most
 * that much of the statistics (the budget itself is accounted elsewhere, atomically).
 *
 * Every request is also appended to the capped stream p:calls as a CallRecord (otel/), the
 * broker's own record of who spent what, which `ao-broker trace report` reads.
 *
 * Both are written through scrubText (otel/core/secret-scrub.ts): a token-shaped string or an
 * Authorization value typed into a command or a path never reaches Redis; the command line itself
 * arrives redacted by the gh rules (core/identifiers.ts summarizeArgv).
 *
 * Keys: p:session:<id>:stats HASH of counters, p:session:<id>:waits LIST (last 200 wait ms),
 * p:session:<id>:recent LIST (last 20 commands as JSON), p:calls STREAM (≈ callsRetained entries).
 */
import type { Redis } from "ioredis";
import type { SessionStats as WireSessionStats } from "../../client/index.js";
import { type CallRecord, decodeCallRecord, encodeCallRecord, scrubText } from "../../otel/index.js";
import { SESSIONS_DEFAULTS } from "./sessions-settings.js";

export interface RequestOutcome {
  readonly record: CallRecord;
  /** The gh command line as the session ran it ("gh pr checks 12"), for the recent-commands list. */
  readonly commandLine?: string | undefined;
}

/**
 * A session's statistics as the broker reads them: the protocol's SessionStats counters (one
 * declaration, client/protocol-results.ts), plus when the session was last seen, and recent
 * commands with epoch-ms times (the wire carries ISO strings).
 */
export interface SessionStatsView extends Omit<WireSessionStats, "recentCommands"> {
  readonly lastSeenAt: number;
  readonly recentCommands: readonly { command: string; cost: number; at: number; cache: string }[];
}

const UPSTREAM_RESULTS = new Set(["MISS", "BYPASS", "REVALIDATED"]);
/** Answers that cost the session nothing (pipeline/types.ts isFreeResult). */
const FREE_RESULTS = new Set(["HIT", "STALE", "STALE_REVALIDATING", "REVALIDATED"]);

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? 0;
}

export class SessionStats {
  readonly #redis: Redis;
  readonly #p: string;
  #pending: RequestOutcome[] = [];
  #timer: NodeJS.Timeout | undefined;

  readonly #callsRetained: number;

  constructor(options: { redis: Redis; prefix: string /** @defaultValue 200000 */; callsRetained?: number }) {
    this.#redis = options.redis;
    this.#p = options.prefix;
    this.#callsRetained = options.callsRetained ?? SESSIONS_DEFAULTS.callsRetained;
  }

  record(outcome: RequestOutcome): void {
    this.#pending.push(outcome);
    if (this.#pending.length >= 500) {
      void this.flush();
      return;
    }
    if (!this.#timer) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        void this.flush();
      }, 100);
      this.#timer.unref();
    }
  }

  /** Counts an invocation (one gh command) for its session. */
  recordInvocation(sessionId: string): void {
    void this.#redis
      .hincrby(`${this.#p}:session:${sessionId}:stats`, "invocations", 1)
      .catch(() => undefined);
  }

  async flush(): Promise<void> {
    const batch = this.#pending;
    this.#pending = [];
    if (batch.length === 0) return;
    // One batch of requests becomes a handful of commands per session, not ten per request.
    const perSession = new Map<
      string,
      { counters: Map<string, number>; lastSeenAt: number; waits: string[]; recent: string[] }
    >();
    const pipeline = this.#redis.pipeline();
    for (const { record: o, commandLine } of batch) {
      let s = perSession.get(o.sessionId);
      if (!s) {
        s = { counters: new Map(), lastSeenAt: 0, waits: [], recent: [] };
        perSession.set(o.sessionId, s);
      }
      const add = (field: string, by: number) => s.counters.set(field, (s.counters.get(field) ?? 0) + by);
      add("requests", 1);
      if (UPSTREAM_RESULTS.has(o.cache)) add("upstreamRequests", 1);
      if (FREE_RESULTS.has(o.cache)) add("cacheHits", 1);
      if (o.cache === "COALESCED") add("coalesced", 1);
      if (o.cache === "BATCHED") add("batched", 1);
      if (o.cost > 0) add(o.resource === "graphql" ? "graphqlPoints" : "restRequests", o.cost);
      s.lastSeenAt = Math.max(s.lastSeenAt, o.at);
      s.waits.push(String(Math.round(o.waitedMs)));
      if (commandLine)
        s.recent.push(
          scrubText(JSON.stringify({ command: commandLine, cost: o.cost, at: o.at, cache: o.cache })),
        );
      pipeline.xadd(
        `${this.#p}:calls`,
        "MAXLEN",
        "~",
        String(this.#callsRetained),
        "*",
        "r",
        scrubText(encodeCallRecord(o)),
      );
    }
    for (const [sessionId, s] of perSession) {
      const key = `${this.#p}:session:${sessionId}:stats`;
      for (const [field, by] of s.counters) {
        if (Number.isInteger(by)) pipeline.hincrby(key, field, by);
        else pipeline.hincrbyfloat(key, field, by);
      }
      pipeline.hset(key, "lastSeenAt", String(s.lastSeenAt));
      pipeline.lpush(`${this.#p}:session:${sessionId}:waits`, ...s.waits.slice(-200));
      pipeline.ltrim(`${this.#p}:session:${sessionId}:waits`, 0, 199);
      if (s.recent.length > 0) {
        pipeline.lpush(`${this.#p}:session:${sessionId}:recent`, ...s.recent.slice(-20));
        pipeline.ltrim(`${this.#p}:session:${sessionId}:recent`, 0, 19);
      }
    }
    try {
      await pipeline.exec();
    } catch {
      // Statistics are best effort; the budget is accounted atomically elsewhere.
    }
  }

  async read(sessionId: string): Promise<SessionStatsView> {
    const [[, stats], [, waits], [, recent]] = (await this.#redis
      .multi()
      .hgetall(`${this.#p}:session:${sessionId}:stats`)
      .lrange(`${this.#p}:session:${sessionId}:waits`, 0, -1)
      .lrange(`${this.#p}:session:${sessionId}:recent`, 0, -1)
      .exec()) as [[unknown, Record<string, string>], [unknown, string[]], [unknown, string[]]];
    const waitValues = waits.map(Number).filter(Number.isFinite);
    const num = (name: string) => Number(stats[name] ?? 0);
    return {
      requests: num("requests"),
      upstreamRequests: num("upstreamRequests"),
      graphqlPoints: Math.round(num("graphqlPoints") * 1000) / 1000,
      restRequests: Math.round(num("restRequests") * 1000) / 1000,
      cacheHits: num("cacheHits"),
      coalesced: num("coalesced"),
      batched: num("batched"),
      invocations: num("invocations"),
      lastSeenAt: num("lastSeenAt"),
      queueWaitMsP50: percentile(waitValues, 50),
      queueWaitMsP95: percentile(waitValues, 95),
      recentCommands: recent.flatMap((line) => {
        try {
          return [JSON.parse(line) as { command: string; cost: number; at: number; cache: string }];
        } catch {
          return [];
        }
      }),
    };
  }

  /** The broker's call records received since `sinceMs` (all retained ones when absent). */
  async calls(sinceMs?: number): Promise<CallRecord[]> {
    const start = sinceMs === undefined ? "-" : String(Math.max(0, Math.floor(sinceMs)));
    const records: CallRecord[] = [];
    let cursor = start;
    for (;;) {
      const page = (await this.#redis.xrange(`${this.#p}:calls`, cursor, "+", "COUNT", 5000)) as [
        string,
        string[],
      ][];
      for (const [, fields] of page) {
        const record = decodeCallRecord(fields[1] ?? "");
        if (record) records.push(record);
      }
      if (page.length < 5000) break;
      const lastId = page[page.length - 1]?.[0] ?? "";
      cursor = `(${lastId}`;
    }
    return records;
  }

  async forget(sessionId: string): Promise<void> {
    await this.#redis.del(
      `${this.#p}:session:${sessionId}:stats`,
      `${this.#p}:session:${sessionId}:waits`,
      `${this.#p}:session:${sessionId}:recent`,
    );
  }

  async close(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }
}
