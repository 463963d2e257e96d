/**
 * Everything the broker tells the outside about what it does, in one place: per-request
 * accounting (session stats and the p:calls record stream), metrics, spans (gh invocation →
 * gateway request → upstream call), AO's trace rows (AO_GH_TRACE_FILE), and the periodic budget
 * and queue gauges. The gateway, the IPC handlers and the upstream adapter call this; none of them
 * touches OpenTelemetry directly. With tracing off every span helper is a no-op (otel/).
 */
import type { Logger } from "../../common/index.js";
import type { LifecycleInstrumentation } from "../../lifecycle/index.js";
import {
  type AoTraceWriter,
  type CallRecord,
  type Context,
  contextWithSpan,
  endUpstreamSpan,
  ghOperation,
  InvocationTracker,
  openAoTraceWriterFromEnv,
  RequestSpan,
  runInContext,
  type Span,
  spanIn,
  startUpstreamSpan,
  type Telemetry,
  withBatchFlushSpan,
  withLifecycleCycleSpan,
  withLifecycleStepSpan,
} from "../../otel/index.js";
import type { GatewayEvent } from "../gateway/gateway-server.js";
import type { UpstreamAnswer, UpstreamRequest } from "../pipeline/ports.js";
import type { Caller, GhRequest, GhResponse } from "../pipeline/types.js";
import type { SessionStats } from "../sessions/session-stats.js";
import { OBSERVABILITY_DEFAULTS } from "./observability-settings.js";

export interface BrokerObservabilityOptions {
  readonly telemetry: Telemetry;
  readonly stats: SessionStats;
  readonly logger: Logger;
  readonly upstreamUrl: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly secrets: () => readonly string[];
}

export interface GaugeSources {
  readonly budget: () => Promise<
    readonly { resource: string; limit: number; remaining: number; used: number; reset: number }[]
  >;
  readonly queue: () => Promise<{ depth: Readonly<Record<string, number>>; pausesStarted: number }>;
  readonly activeSessions: () => Promise<number>;
}

export class BrokerObservability {
  readonly #t: Telemetry;
  readonly #stats: SessionStats;
  readonly #logger: Logger;
  readonly #upstreamUrl: string;
  readonly #writer: AoTraceWriter | undefined;
  readonly invocations: InvocationTracker;
  /**
   * The span of every request being traced (or the context of a batch flush), by request id, and
   * the context of the lifecycle step running now: how upstream calls, batch flushes and
   * lifecycle requests find their parent span. Passing parents this way instead of through an
   * async context manager (AsyncLocalStorage, which on Node 20 taxes every promise in the
   * process) is part of what keeps tracing cheap on a cache hit; RequestSpan is the rest
   * (docs/observability.md, "Overhead").
   */
  readonly #requestParents = new Map<string, RequestSpan | Context>();
  #lifecycleContext: Context | undefined;
  #gaugeTimer: NodeJS.Timeout | undefined;
  #pausesSeen = 0;

  constructor(options: BrokerObservabilityOptions) {
    this.#t = options.telemetry;
    this.#stats = options.stats;
    this.#logger = options.logger;
    this.#upstreamUrl = options.upstreamUrl.replace(/\/+$/, "");
    this.#writer = openAoTraceWriterFromEnv(options.env, (error) =>
      this.#logger.warn({ err: error }, "AO trace file not writable"),
    );
    this.invocations = new InvocationTracker({
      tracer: this.#t.tracer,
      traceSink: this.#writer,
      metrics: this.#t.instruments,
      component: "ao-broker",
      secrets: options.secrets,
    });
  }

  get telemetry(): Telemetry {
    return this.#t;
  }

  start(sources: GaugeSources, intervalMs = OBSERVABILITY_DEFAULTS.gaugeIntervalMs): void {
    this.invocations.start();
    const tick = async () => {
      try {
        for (const bucket of await sources.budget()) this.#t.instruments.setBudget(bucket);
        const queue = await sources.queue();
        for (const [priority, depth] of Object.entries(queue.depth))
          this.#t.instruments.setQueueDepth(priority, depth);
        for (; this.#pausesSeen < queue.pausesStarted; this.#pausesSeen++)
          this.#t.instruments.recordSecondaryLimitPause("all");
        this.#t.instruments.setActiveSessions(await sources.activeSessions());
      } catch (error) {
        this.#logger.debug({ err: error }, "gauge refresh failed");
      }
    };
    void tick();
    this.#gaugeTimer = setInterval(() => void tick(), intervalMs);
    this.#gaugeTimer.unref();
  }

  async close(): Promise<void> {
    if (this.#gaugeTimer) clearInterval(this.#gaugeTimer);
    await this.invocations.close();
    await this.#writer?.close();
  }

  /** A gh invocation began (IPC token.issue, or the first request of a derived token). */
  invocationStarted(info: {
    invocationId: string;
    caller: Pick<Caller, "sessionId" | "projectId" | "issueId">;
    argv: readonly string[];
    cwd?: string | undefined;
  }): void {
    this.invocations.begin({
      invocationId: info.invocationId,
      args: info.argv,
      sessionId: info.caller.sessionId,
      projectId: info.caller.projectId,
      issueId: info.caller.issueId,
      cwd: info.cwd,
    });
  }

  invocationFinished(
    invocationId: string,
    exit: { exitCode: number; durationMs: number; signal?: string | undefined },
  ): void {
    this.invocations.end(invocationId, exit);
  }

  /** Runs one gateway/IPC request inside its span, a child of its gh invocation's span. */
  traceRequest(request: GhRequest, run: () => Promise<GhResponse>): Promise<GhResponse> {
    return this.#traceRequest(request, run, this.invocations.parentContext(request.caller.invocationId));
  }

  /** Runs one lifecycle request inside its span, a child of the lifecycle step that sent it. */
  traceLifecycleRequest(request: GhRequest, run: () => Promise<GhResponse>): Promise<GhResponse> {
    return this.#traceRequest(request, run, this.#lifecycleContext);
  }

  async #traceRequest(
    request: GhRequest,
    run: () => Promise<GhResponse>,
    parent: Context | undefined,
  ): Promise<GhResponse> {
    if (!this.#t.tracingEnabled) return run();
    const span = new RequestSpan(
      this.#t.tracer,
      {
        requestId: request.id,
        method: request.method,
        path: request.path,
        operationName: request.classification.graphql?.operationName,
        operationType: request.classification.graphql?.operationType,
        sessionId: request.caller.sessionId,
        projectId: request.caller.projectId,
        invocationId: request.caller.invocationId,
        command: request.caller.operation,
        priority: request.priority,
        resource: request.classification.resource,
        readOnly: request.caller.readOnly,
      },
      parent,
      this.#t.deferredSpans,
    );
    this.#requestParents.set(request.id, span);
    try {
      const response = this.#t.tracksActiveContext ? await runInContext(span.context, run) : await run();
      span.end({
        status: response.status,
        cache: response.cache,
        cost: response.cost,
        // Set at the start already unless the answer says otherwise.
        resource: response.resource === request.classification.resource ? undefined : response.resource,
        waitedMs: response.waitedMs,
        batched: response.cache === "BATCHED",
        coalesced: response.cache === "COALESCED",
      });
      return response;
    } catch (error) {
      span.end({ status: 0, cache: "BYPASS", cost: 0, error });
      throw error;
    } finally {
      if (this.#requestParents.get(request.id) === span) this.#requestParents.delete(request.id);
    }
  }

  /** The context to start a span under request `requestId` in, if it is being traced. */
  #parentOf(requestId: string): Context | undefined {
    const parent = this.#requestParents.get(requestId);
    return parent instanceof RequestSpan ? parent.context : parent;
  }

  /** Wraps one call to the upstream queue in an upstream span and its metrics. */
  async traceUpstream(
    request: UpstreamRequest,
    send: () => Promise<UpstreamAnswer>,
  ): Promise<UpstreamAnswer> {
    const started = performance.now();
    const span = startUpstreamSpan(
      this.#t.tracer,
      {
        method: request.method,
        url: `${this.#upstreamUrl}${request.path}`,
        resource: request.resource,
      },
      this.#parentOf(request.requestId),
    );
    try {
      const answer = await send();
      const rateLimit = answer.headers["x-ratelimit-limit"]
        ? {
            limit: Number(answer.headers["x-ratelimit-limit"]),
            remaining: Number(answer.headers["x-ratelimit-remaining"]),
            reset: Number(answer.headers["x-ratelimit-reset"]),
            resource: answer.headers["x-ratelimit-resource"] ?? request.resource,
          }
        : undefined;
      endUpstreamSpan(span, { status: answer.status, rateLimit, graphqlCost: answer.graphqlCost });
      this.#t.instruments.recordUpstream({
        resource: request.resource,
        method: request.method,
        status: answer.status,
        durationMs: performance.now() - started,
        cost: request.kind === "graphql" ? answer.graphqlCost : answer.status === 304 ? 0 : 1,
      });
      return answer;
    } catch (error) {
      endUpstreamSpan(span, { error });
      this.#t.instruments.recordUpstream({
        resource: request.resource,
        method: request.method,
        status: 0,
        durationMs: performance.now() - started,
      });
      throw error;
    }
  }

  /** What a batch member hands the flush span: its request span, to link to and back from. */
  captureContext(request: GhRequest): unknown {
    return spanIn(this.#parentOf(request.id));
  }

  /**
   * Runs the flush of `request`, a query merged from members' requests: with several members in
   * a flush span of its own, linked to each; with one, in that member's trace.
   */
  traceFlush<T>(members: readonly unknown[], request: GhRequest, fn: () => Promise<T>): Promise<T> {
    if (members.length > 1) this.#t.instruments.recordBatchFlush(members.length);
    if (!this.#t.tracingEnabled) return fn();
    const inContext = async (ctx: Context | undefined) => {
      if (ctx === undefined) return fn();
      this.#requestParents.set(request.id, ctx);
      try {
        return await fn();
      } finally {
        this.#requestParents.delete(request.id);
      }
    };
    if (members.length <= 1) {
      const member = members[0] as Span | undefined;
      return inContext(member === undefined ? undefined : contextWithSpan(member));
    }
    return withBatchFlushSpan(
      this.#t.tracer,
      { members: members as (Span | undefined)[], resource: "graphql" },
      (span) => inContext(contextWithSpan(span)),
    );
  }

  /** One read that went to GitHub, by why and whether its body was new (cache-layer.ts). */
  recordUpstreamRead(read: { reason: string; identical: boolean; points: number; resource: string }): void {
    this.#t.instruments.recordUpstreamRead(read);
  }

  /** Traces a request the broker sends on its own (a refresh), outside any agent's trace. */
  traceBrokerRequest(request: GhRequest, run: () => Promise<GhResponse>): Promise<GhResponse> {
    return this.#traceRequest(request, run, undefined);
  }

  /** Accounting for one answered request (gateway or IPC). */
  recordAnswer(
    caller: Caller,
    request: Pick<GhRequest, "method" | "path" | "receivedAt" | "classification">,
    response: GhResponse,
    status: number,
  ): void {
    const record: CallRecord = {
      at: request.receivedAt,
      sessionId: caller.sessionId,
      projectId: caller.projectId,
      invocationId: caller.invocationId,
      command: caller.operation ?? "ao.ipc",
      method: request.method,
      path: request.path.split("?")[0] ?? request.path,
      operationName: request.classification.graphql?.operationName,
      resource: response.resource,
      cost: response.cost,
      cache: response.cache,
      status,
      durationMs: Math.max(0, Date.now() - request.receivedAt),
      waitedMs: response.waitedMs ?? 0,
      batched: response.cache === "BATCHED",
      coalesced: response.cache === "COALESCED",
    };
    this.#stats.record({ record, commandLine: caller.command });
    this.#t.instruments.recordRequest({
      sessionId: caller.sessionId,
      command: record.command,
      resource: record.resource,
      cache: record.cache,
      cost: record.cost,
      durationMs: record.durationMs,
    });
    if (response.waitedMs) this.#t.instruments.recordQueueWait("interactive", response.waitedMs);
    this.invocations.addResponse(caller.invocationId, {
      method: request.method,
      path: request.path,
      status,
      headers: response.headers,
      resource: response.resource,
      cost: response.cost,
      cache: response.cache,
      waitedMs: response.waitedMs ?? 0,
    });
  }

  /** Spans (a cycle with guard and batch children) and cycle metrics for the lifecycle poller. */
  lifecycleInstrumentation(): LifecycleInstrumentation {
    const tracer = this.#t.tracer;
    return {
      cycle: (info, run) => withLifecycleCycleSpan(tracer, info, (span) => this.#inLifecycle(span, run)),
      step: (step, run) =>
        withLifecycleStepSpan(
          tracer,
          step,
          undefined,
          (span) => this.#inLifecycle(span, run),
          this.#lifecycleContext,
        ),
      cycleDone: (report) =>
        this.#t.instruments.recordLifecycleCycle({
          durationMs: report.durationMs,
          ok: true,
          cost: {
            graphql: report.enrichment.points + report.detection.points,
            core: report.guards.requests - report.guards.notModified,
          },
        }),
    };
  }

  /** The lifecycle runs one cycle, and in it one step, at a time: one slot holds the current span. */
  async #inLifecycle<T>(span: Span, run: () => Promise<T>): Promise<T> {
    const previous = this.#lifecycleContext;
    this.#lifecycleContext = contextWithSpan(span, previous);
    try {
      return await run();
    } finally {
      this.#lifecycleContext = previous;
    }
  }

  onGatewayEvent(event: GatewayEvent): void {
    if (!event.response) return;
    this.recordAnswer(event.request.caller, event.request, event.response, event.status);
  }
}

export { ghOperation };
