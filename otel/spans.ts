/**
 * Span helpers for the broker's layers. The span tree they build:
 *
 *   gh pr checks (invocation, from InvocationTracker)        ← shim registers / reports exit
 *     └ graphql PullRequestByNumber (gateway request, SERVER)  ← parent found by invocation id
 *         └ upstream graphql PullRequestByNumber (CLIENT)      ← HTTP semantic conventions
 *   ao.batch.flush (root, LINKED to every member request span; members link back)
 *     └ upstream graphql … (the merged query)
 *   ao.lifecycle.cycle (root) → ao.lifecycle.guard / ao.lifecycle.batch children
 *
 * Hot-path rule: attributes are computed only when the span records. With tracing off (a
 * DisabledTracer) `withSpan` runs the callback directly and the start/end helpers return the shared
 * non-recording span without building anything.
 */
import {
  type Attributes,
  type Context,
  context,
  type Link,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { AoAttributes, GitHubAttributes, SemconvAttributes, SpanNames } from "./attributes.js";
import { requestSpanName, routeTemplate, safeUrl } from "./core/route-template.js";
import { isTracingDisabled } from "./disabled-tracer.js";

/** Attributes, or a function building them that is only called when the span records. */
export type AttributesInput = Attributes | (() => Attributes) | undefined;

export interface WithSpanOptions {
  /** @defaultValue SpanKind.INTERNAL */
  readonly kind?: SpanKind;
  readonly links?: readonly Link[];
  /** Parent context. @defaultValue the active context */
  readonly parent?: Context;
  /** Start a new trace even when a span is active. @defaultValue false */
  readonly root?: boolean;
}

function resolveAttributes(input: AttributesInput): Attributes | undefined {
  return typeof input === "function" ? input() : input;
}

/**
 * Marks `span` failed with `error` (exception event, ERROR status, error.type = AoError code or
 * name). `time`: when it failed, for a span ended after the fact (RequestSpan).
 */
export function recordSpanError(span: Span, error: unknown, time?: number): void {
  if (!span.isRecording()) return;
  if (error instanceof Error) {
    span.recordException(error, time);
    const code = (error as { code?: unknown }).code;
    span.setAttribute(SemconvAttributes.ERROR_TYPE, typeof code === "string" ? code : error.name);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  } else {
    span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
  }
}

/**
 * Runs `fn` inside a new span (active for everything `fn` awaits), ends the span when `fn` settles
 * and marks it failed when `fn` throws. The span is passed to `fn` for attributes known later.
 */
export async function withSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: AttributesInput,
  fn: (span: Span) => Promise<T> | T,
  options: WithSpanOptions = {},
): Promise<T> {
  if (isTracingDisabled(tracer)) return fn(tracer.startSpan(name));
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(
    name,
    {
      kind: options.kind ?? SpanKind.INTERNAL,
      ...(options.links === undefined ? {} : { links: [...options.links] }),
      ...(options.root === true ? { root: true } : {}),
    },
    parent,
  );
  if (span.isRecording()) {
    const resolved = resolveAttributes(attributes);
    if (resolved !== undefined) span.setAttributes(resolved);
  }
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (error) {
    recordSpanError(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * A context whose span is `span`: the explicit parent for spans started later under it. The
 * broker passes these along instead of relying on an async context manager (telemetry.ts).
 */
export function contextWithSpan(span: Span, parent: Context = ROOT_CONTEXT): Context {
  return trace.setSpan(parent, span);
}

/** The span held by `ctx`, if any. */
export function spanIn(ctx: Context | undefined): Span | undefined {
  return ctx === undefined ? undefined : trace.getSpan(ctx);
}

/**
 * Runs `fn` with `ctx` active, for whatever reads the active context (Redis spans, when their
 * async context manager is registered). Without one this is a plain call.
 */
export function runInContext<T>(ctx: Context, fn: () => T): T {
  return context.with(ctx, fn);
}

export interface GatewayRequestInfo {
  readonly requestId: string;
  readonly method: string;
  /** Path and query as GitHub sees it. */
  readonly path: string;
  readonly operationName?: string | undefined;
  /** query | mutation, for GraphQL. */
  readonly operationType?: string | undefined;
  readonly sessionId: string;
  readonly projectId?: string | undefined;
  readonly invocationId?: string | undefined;
  readonly command?: string | undefined;
  readonly priority?: string | undefined;
  readonly resource?: string | undefined;
  readonly readOnly?: boolean | undefined;
}

function defined(attributes: Record<string, Attributes[string] | undefined>): Attributes {
  const out: Attributes = {};
  for (const key in attributes) if (attributes[key] !== undefined) out[key] = attributes[key];
  return out;
}

/**
 * Starts the gateway span of one request (SERVER kind). `parent` is the invocation's context when
 * the request came with an invocation token (InvocationTracker.parentContext), else the active one.
 * `startTime` (a performance.now() reading) when the span is started after the request was.
 */
export function startRequestSpan(
  tracer: Tracer,
  info: GatewayRequestInfo,
  parent?: Context,
  startTime?: number,
): Span {
  if (isTracingDisabled(tracer)) return tracer.startSpan("");
  const route = routeTemplate(info.path);
  const span = tracer.startSpan(
    requestSpanName(info, route),
    startTime === undefined ? { kind: SpanKind.SERVER } : { kind: SpanKind.SERVER, startTime },
    parent ?? context.active(),
  );
  if (!span.isRecording()) return span;
  span.setAttributes(
    defined({
      [SemconvAttributes.HTTP_REQUEST_METHOD]: info.method.toUpperCase(),
      [SemconvAttributes.URL_PATH]: info.path.split("?")[0],
      [SemconvAttributes.HTTP_ROUTE]: route,
      [SemconvAttributes.GRAPHQL_OPERATION_NAME]: info.operationName,
      [SemconvAttributes.GRAPHQL_OPERATION_TYPE]: info.operationType,
      [AoAttributes.REQUEST_ID]: info.requestId,
      [AoAttributes.SESSION_ID]: info.sessionId,
      [AoAttributes.PROJECT_ID]: info.projectId,
      [AoAttributes.INVOCATION_ID]: info.invocationId,
      [AoAttributes.COMMAND]: info.command,
      [AoAttributes.PRIORITY]: info.priority,
      [AoAttributes.READ_ONLY]: info.readOnly === true ? true : undefined,
      [GitHubAttributes.RESOURCE]: info.resource,
    }),
  );
  return span;
}

export interface RequestOutcome {
  readonly status: number;
  /** HIT, REVALIDATED, MISS, COALESCED, BATCHED, STALE, STALE_REVALIDATING, BYPASS. */
  readonly cache: string;
  /** Charged to this caller. */
  readonly cost: number;
  readonly resource?: string | undefined;
  readonly waitedMs?: number | undefined;
  readonly batched?: boolean | undefined;
  readonly coalesced?: boolean | undefined;
  readonly error?: unknown;
}

/** Records the outcome on a gateway span and ends it (at `endTime`, a performance.now() reading). */
export function endRequestSpan(span: Span, outcome: RequestOutcome, endTime?: number): void {
  if (span.isRecording()) {
    span.setAttributes(
      defined({
        [SemconvAttributes.HTTP_RESPONSE_STATUS_CODE]: outcome.status,
        [AoAttributes.CACHE_RESULT]: outcome.cache,
        [AoAttributes.COST_CHARGED]: outcome.cost,
        [GitHubAttributes.RESOURCE]: outcome.resource,
        [AoAttributes.QUEUE_WAIT_MS]:
          outcome.waitedMs === undefined ? undefined : Math.round(outcome.waitedMs),
        // Flags are set only when true: every attribute is paid for on each cache hit's span.
        [AoAttributes.BATCHED]: (outcome.batched ?? outcome.cache === "BATCHED") || undefined,
        [AoAttributes.COALESCED]: (outcome.coalesced ?? outcome.cache === "COALESCED") || undefined,
      }),
    );
    if (outcome.error !== undefined) recordSpanError(span, outcome.error, endTime);
    else if (outcome.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end(endTime);
}

export interface UpstreamCallInfo {
  readonly method: string;
  /** Full upstream URL; user-info and credential-like query values are removed. */
  readonly url: string;
  readonly resource?: string | undefined;
  readonly operationName?: string | undefined;
  /** 1 for the first try. */
  readonly attempt?: number | undefined;
}

/** Starts an upstream call span (CLIENT kind, HTTP client semantic conventions). */
export function startUpstreamSpan(tracer: Tracer, info: UpstreamCallInfo, parent?: Context): Span {
  if (isTracingDisabled(tracer)) return tracer.startSpan("");
  let path = "/";
  let host: string | undefined;
  let port: number | undefined;
  try {
    const url = new URL(info.url);
    path = url.pathname + url.search;
    host = url.hostname;
    port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  } catch {
    // An unparsable URL still gets a span; it simply has no server.* attributes.
  }
  const span = tracer.startSpan(
    `upstream ${requestSpanName({ method: info.method, path, operationName: info.operationName })}`,
    { kind: SpanKind.CLIENT },
    parent ?? context.active(),
  );
  if (!span.isRecording()) return span;
  span.setAttributes(
    defined({
      [SemconvAttributes.HTTP_REQUEST_METHOD]: info.method.toUpperCase(),
      [SemconvAttributes.URL_FULL]: safeUrl(info.url),
      [SemconvAttributes.SERVER_ADDRESS]: host,
      [SemconvAttributes.SERVER_PORT]: port,
      [SemconvAttributes.GRAPHQL_OPERATION_NAME]: info.operationName,
      [GitHubAttributes.RESOURCE]: info.resource,
      "http.request.resend_count":
        info.attempt !== undefined && info.attempt > 1 ? info.attempt - 1 : undefined,
    }),
  );
  return span;
}

export interface UpstreamOutcome {
  /** HTTP status; undefined when no response arrived. */
  readonly status?: number | undefined;
  readonly rateLimit?:
    | {
        readonly limit: number;
        readonly remaining: number;
        readonly reset: number;
        readonly resource: string;
      }
    | undefined;
  /** rateLimit.cost of a GraphQL answer. */
  readonly graphqlCost?: number | undefined;
  readonly retryAfterS?: number | undefined;
  readonly error?: unknown;
}

export function endUpstreamSpan(span: Span, outcome: UpstreamOutcome): void {
  if (span.isRecording()) {
    span.setAttributes(
      defined({
        [SemconvAttributes.HTTP_RESPONSE_STATUS_CODE]: outcome.status,
        [GitHubAttributes.RATELIMIT_LIMIT]: outcome.rateLimit?.limit,
        [GitHubAttributes.RATELIMIT_REMAINING]: outcome.rateLimit?.remaining,
        [GitHubAttributes.RATELIMIT_RESET]: outcome.rateLimit?.reset,
        [GitHubAttributes.RESOURCE]: outcome.rateLimit?.resource,
        [GitHubAttributes.GRAPHQL_COST]: outcome.graphqlCost,
        [GitHubAttributes.RETRY_AFTER_S]: outcome.retryAfterS,
      }),
    );
    if (outcome.error !== undefined) recordSpanError(span, outcome.error);
    else if (outcome.status === undefined || outcome.status >= 400) {
      // HTTP client semconv: 4xx and 5xx are errors on the client side.
      span.setStatus({ code: SpanStatusCode.ERROR });
      if (outcome.status !== undefined)
        span.setAttribute(SemconvAttributes.ERROR_TYPE, String(outcome.status));
    }
  }
  span.end();
}

export interface BatchFlushInfo {
  /** The member requests' spans (or their contexts); the flush span links to each. */
  readonly members: readonly (Span | SpanContext | undefined)[];
  readonly resource?: string | undefined;
}

function memberContext(member: Span | SpanContext | undefined): SpanContext | undefined {
  if (member === undefined) return undefined;
  const spanContext = "spanContext" in member ? member.spanContext() : member;
  return trace.isSpanContextValid(spanContext) ? spanContext : undefined;
}

/**
 * Runs a batch flush in its own trace (it serves many callers, so it is nobody's child), linked to
 * every member request span; open member spans get a link back, so the flush is reachable from
 * either side in Jaeger.
 */
export function withBatchFlushSpan<T>(
  tracer: Tracer,
  info: BatchFlushInfo,
  fn: (span: Span) => Promise<T> | T,
): Promise<T> {
  if (isTracingDisabled(tracer)) return withSpan(tracer, SpanNames.BATCH_FLUSH, undefined, fn);
  const links: Link[] = [];
  for (const member of info.members) {
    const spanContext = memberContext(member);
    if (spanContext !== undefined) links.push({ context: spanContext });
  }
  return withSpan(
    tracer,
    SpanNames.BATCH_FLUSH,
    () =>
      defined({ [AoAttributes.BATCH_SIZE]: info.members.length, [GitHubAttributes.RESOURCE]: info.resource }),
    (span) => {
      const flushContext = span.spanContext();
      for (const member of info.members) {
        if (member !== undefined && "isRecording" in member && member.isRecording()) {
          member.addLink({ context: flushContext });
        }
      }
      return fn(span);
    },
    { links, root: true },
  );
}

export interface LifecycleCycleInfo {
  readonly sessions: number;
  readonly prs: number;
}

/** One lifecycle polling cycle, as the root of its own trace. */
export function withLifecycleCycleSpan<T>(
  tracer: Tracer,
  info: LifecycleCycleInfo,
  fn: (span: Span) => Promise<T> | T,
): Promise<T> {
  return withSpan(
    tracer,
    SpanNames.LIFECYCLE_CYCLE,
    () => ({ [AoAttributes.LIFECYCLE_SESSIONS]: info.sessions, [AoAttributes.LIFECYCLE_PRS]: info.prs }),
    fn,
    { root: true },
  );
}

/** A step of a lifecycle cycle: an ETag guard or a batched PR query (child of `parent`, its cycle). */
export function withLifecycleStepSpan<T>(
  tracer: Tracer,
  step: "guard" | "batch",
  attributes: AttributesInput,
  fn: (span: Span) => Promise<T> | T,
  parent?: Context,
): Promise<T> {
  const name = step === "guard" ? SpanNames.LIFECYCLE_GUARD : SpanNames.LIFECYCLE_BATCH;
  return withSpan(
    tracer,
    name,
    () => ({ [AoAttributes.LIFECYCLE_STEP]: step, ...resolveAttributes(attributes) }),
    fn,
    parent === undefined ? {} : { parent },
  );
}
