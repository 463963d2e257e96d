/**
 * One record per gh invocation, keyed by invocation id: its span (started when the shim registers
 * the invocation, ended when the shim reports the exit) and a running summary of the requests it
 * made, from which AO's trace row is written at the end. The gateway looks up `parentContext(id)`
 * to hang each request span under its invocation.
 *
 * Invariants: memory is bounded (at most `maxOpen` entries; the oldest is ended as abandoned when
 * more arrive) and time is bounded (`sweep()` ends entries older than `ttlMs`, so a shim killed
 * with SIGKILL cannot leak); an abandoned invocation still gets its span ended and its AO row
 * written (ok=false, no exit code): its requests did cost something. With tracing off and no trace
 * file, begin() stores nothing and every other call is a map miss.
 */
import {
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { AoAttributes, SemconvAttributes } from "./attributes.js";
import {
  type AoTraceRequestSummary,
  type AoTraceResponse,
  type AoTraceRow,
  addResponse,
  buildAoTraceRow,
  EMPTY_REQUEST_SUMMARY,
} from "./core/ao-trace-row.js";
import { ghOperation, invocationSpanName } from "./core/command-name.js";
import { redactArgs } from "./core/redact-args.js";
import { isTracingDisabled } from "./disabled-tracer.js";
import type { BrokerMetrics } from "./metrics.js";

export interface InvocationInfo {
  readonly invocationId: string;
  /** gh arguments after `gh`. */
  readonly args: readonly string[];
  readonly sessionId: string;
  readonly projectId?: string | undefined;
  readonly issueId?: string | undefined;
  readonly cwd?: string | undefined;
  /** Epoch ms the shim started gh. @defaultValue now */
  readonly startedAt?: number | undefined;
}

export interface InvocationExit {
  readonly exitCode?: number | undefined;
  readonly signal?: string | undefined;
  /** As measured by the shim. @defaultValue now − startedAt */
  readonly durationMs?: number | undefined;
  readonly stdoutBytes?: number | undefined;
  readonly stderrBytes?: number | undefined;
}

/** Where finished rows go (AoTraceWriter implements it). */
export interface AoTraceSink {
  append(row: AoTraceRow): void;
}

export interface InvocationTrackerOptions {
  readonly tracer: Tracer;
  /** AO trace rows are written here when given (AO_GH_TRACE_FILE). */
  readonly traceSink?: AoTraceSink | undefined;
  /** Counts invocations by command and outcome. */
  readonly metrics?: BrokerMetrics | undefined;
  /** AO's `component` for these rows. @defaultValue "ao-broker.shim" */
  readonly component?: string;
  /** An invocation with no exit report after this long is ended as abandoned. @defaultValue 6 hours (the invocation token lifetime) */
  readonly ttlMs?: number;
  /** Most invocations tracked at once. @defaultValue 10000 */
  readonly maxOpen?: number;
  /** How often start() sweeps. @defaultValue 60000 */
  readonly sweepIntervalMs?: number;
  readonly secrets?: () => readonly string[];
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

interface Entry {
  readonly info: InvocationInfo;
  readonly operation: string;
  readonly startedAt: number;
  readonly span: Span | undefined;
  readonly context: Context | undefined;
  summary: AoTraceRequestSummary;
}

export class InvocationTracker {
  readonly #tracer: Tracer;
  readonly #sink: AoTraceSink | undefined;
  readonly #metrics: BrokerMetrics | undefined;
  readonly #component: string;
  readonly #ttlMs: number;
  readonly #maxOpen: number;
  readonly #sweepIntervalMs: number;
  readonly #secrets: () => readonly string[];
  readonly #now: () => number;
  readonly #tracing: boolean;
  readonly #entries = new Map<string, Entry>();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: InvocationTrackerOptions) {
    this.#tracer = options.tracer;
    this.#sink = options.traceSink;
    this.#metrics = options.metrics;
    this.#component = options.component ?? "ao-broker.shim";
    this.#ttlMs = options.ttlMs ?? 6 * 3_600_000;
    this.#maxOpen = Math.max(1, options.maxOpen ?? 10_000);
    this.#sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    this.#secrets = options.secrets ?? (() => []);
    this.#now = options.now ?? Date.now;
    this.#tracing = !isTracingDisabled(options.tracer);
  }

  /** Open invocations. */
  get size(): number {
    return this.#entries.size;
  }

  /** Sweeps on a timer until close(). */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.sweep(), this.#sweepIntervalMs);
    this.#timer.unref();
  }

  /** Ends every open invocation as abandoned (the broker is stopping) and stops sweeping. */
  async close(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    for (const id of [...this.#entries.keys()]) this.#abandon(id, "broker closed");
  }

  begin(info: InvocationInfo): void {
    if (!this.#tracing && this.#sink === undefined && this.#metrics === undefined) return;
    if (this.#entries.has(info.invocationId)) return;
    while (this.#entries.size >= this.#maxOpen) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#abandon(oldest, "too many open invocations");
    }
    const startedAt = info.startedAt ?? this.#now();
    const operation = ghOperation(info.args);
    let span: Span | undefined;
    let context: Context | undefined;
    if (this.#tracing) {
      span = this.#tracer.startSpan(
        invocationSpanName(operation),
        { kind: SpanKind.INTERNAL, startTime: startedAt, root: true },
        ROOT_CONTEXT,
      );
      if (span.isRecording()) {
        const attributes: Record<string, string | string[]> = {
          [AoAttributes.INVOCATION_ID]: info.invocationId,
          [AoAttributes.SESSION_ID]: info.sessionId,
          [AoAttributes.COMMAND]: operation,
          [AoAttributes.ARGV]: redactArgs(info.args, this.#secrets()),
        };
        if (info.projectId !== undefined) attributes[AoAttributes.PROJECT_ID] = info.projectId;
        if (info.issueId !== undefined) attributes[AoAttributes.ISSUE_ID] = info.issueId;
        if (info.cwd !== undefined) attributes[SemconvAttributes.PROCESS_WORKING_DIRECTORY] = info.cwd;
        span.setAttributes(attributes);
      }
      context = trace.setSpan(ROOT_CONTEXT, span);
    }
    this.#entries.set(info.invocationId, {
      info,
      operation,
      startedAt,
      span,
      context,
      summary: EMPTY_REQUEST_SUMMARY,
    });
  }

  /** The context to start this invocation's request spans in (undefined when unknown or not traced). */
  parentContext(invocationId: string | undefined): Context | undefined {
    return invocationId === undefined ? undefined : this.#entries.get(invocationId)?.context;
  }

  /** Adds one served request to the invocation's summary (for its AO trace row). */
  addResponse(invocationId: string | undefined, response: AoTraceResponse): void {
    if (invocationId === undefined) return;
    const entry = this.#entries.get(invocationId);
    if (entry !== undefined) entry.summary = addResponse(entry.summary, response);
  }

  /** Ends the invocation; returns the AO trace row appended to the sink (undefined without a sink). */
  end(invocationId: string, exit: InvocationExit): AoTraceRow | undefined {
    const entry = this.#entries.get(invocationId);
    if (entry === undefined) return undefined;
    this.#entries.delete(invocationId);
    return this.#finish(entry, exit, undefined);
  }

  /** Ends invocations older than the TTL; returns how many. */
  sweep(): number {
    const cutoff = this.#now() - this.#ttlMs;
    let ended = 0;
    for (const [id, entry] of this.#entries) {
      if (entry.startedAt > cutoff) continue;
      this.#abandon(id, "no exit reported before the invocation TTL");
      ended++;
    }
    return ended;
  }

  #abandon(invocationId: string, reason: string): void {
    const entry = this.#entries.get(invocationId);
    if (entry === undefined) return;
    this.#entries.delete(invocationId);
    this.#finish(entry, {}, reason);
  }

  #finish(entry: Entry, exit: InvocationExit, abandonedBecause: string | undefined): AoTraceRow | undefined {
    const now = this.#now();
    const durationMs = exit.durationMs ?? Math.max(0, now - entry.startedAt);
    const failed = abandonedBecause !== undefined || exit.exitCode !== 0 || exit.signal !== undefined;
    const { span } = entry;
    if (span !== undefined) {
      if (span.isRecording()) {
        const attributes: Record<string, string | number> = {
          [AoAttributes.COST_CHARGED]: entry.summary.pointsCharged,
          "ao.invocation.requests": entry.summary.count,
        };
        if (exit.exitCode !== undefined) attributes[SemconvAttributes.PROCESS_EXIT_CODE] = exit.exitCode;
        if (exit.signal !== undefined) attributes["ao.invocation.signal"] = exit.signal;
        if (abandonedBecause !== undefined) attributes[AoAttributes.END_REASON] = abandonedBecause;
        span.setAttributes(attributes);
        if (failed) {
          span.setStatus({
            code: SpanStatusCode.ERROR,
            message:
              abandonedBecause ??
              (exit.signal !== undefined ? `killed by ${exit.signal}` : `exit code ${exit.exitCode}`),
          });
        }
      }
      span.end(entry.startedAt + durationMs);
    }
    this.#metrics?.recordInvocation(
      entry.operation,
      abandonedBecause !== undefined ? "abandoned" : failed ? "error" : "ok",
    );
    const sink = this.#sink;
    if (sink === undefined) return undefined;
    const row = buildAoTraceRow({
      component: this.#component,
      finishedAt: entry.startedAt + durationMs,
      durationMs,
      args: entry.info.args,
      operation: entry.operation,
      projectId: entry.info.projectId,
      sessionId: entry.info.sessionId,
      invocationId: entry.info.invocationId,
      cwd: entry.info.cwd,
      exitCode: exit.exitCode,
      signal: exit.signal,
      stdoutBytes: exit.stdoutBytes,
      stderrBytes: exit.stderrBytes,
      requests: entry.summary,
      secrets: this.#secrets(),
    });
    sink.append(row);
    return row;
  }
}
