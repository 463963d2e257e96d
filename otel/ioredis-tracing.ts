/**
 * Redis spans from ioredis 6's own diagnostics channels (`ioredis:command`, `ioredis:batch`;
 * node_modules/ioredis/built/tracing.js). ioredis 6 publishes every command on a TracingChannel
 * when, and only when, someone subscribes, so this needs no monkey-patching, works however ioredis
 * was loaded (ESM import, require, bundled) and in whatever order, and costs nothing while tracing
 * is off (we do not subscribe then; ioredis checks `hasSubscribers` before building any context).
 * That is why the broker uses this rather than @opentelemetry/instrumentation-ioredis, which only
 * sees ioredis when it is loaded after the instrumentation through require() or an ESM loader hook
 * (see otel/register.ts for that route).
 *
 * Invariants: a span is made only when a span is already active (like the instrumentation's
 * requireParentSpan default), so BullMQ's blocking polls and heartbeats do not each become a
 * one-span trace; the query text is what ioredis already sanitised (values of writes are "?"),
 * cut to 200 characters.
 */
import { type TracingChannelSubscribers, tracingChannel } from "node:diagnostics_channel";
import { context, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import { SemconvAttributes } from "./attributes.js";

interface CommandMessage {
  readonly command: string;
  readonly args: readonly string[];
  readonly database: number;
  readonly serverAddress: string;
  readonly serverPort: number | undefined;
  readonly error?: unknown;
}

interface BatchMessage {
  readonly batchMode: string;
  readonly batchSize: number;
  readonly database: number;
  readonly serverAddress: string;
  readonly serverPort: number | undefined;
  readonly error?: unknown;
}

export interface IoredisTracingOptions {
  readonly tracer: Tracer;
  /** Only trace commands issued inside an active span. @defaultValue true */
  readonly requireParentSpan?: boolean;
}

export interface IoredisTracing {
  close(): void;
}

const MAX_QUERY_TEXT = 200;

function queryText(message: CommandMessage): string {
  const text = [message.command.toUpperCase(), ...message.args].join(" ");
  return text.length > MAX_QUERY_TEXT ? `${text.slice(0, MAX_QUERY_TEXT)}…` : text;
}

function subscribers<M extends object>(
  start: (message: M) => Span | undefined,
): TracingChannelSubscribers<M> {
  const spans = new WeakMap<object, Span>();
  return {
    start(message) {
      const span = start(message);
      if (span !== undefined) spans.set(message, span);
    },
    end() {},
    asyncStart() {},
    asyncEnd(message) {
      const span = spans.get(message);
      if (span === undefined) return;
      spans.delete(message);
      span.end();
    },
    error(message) {
      const span = spans.get(message);
      const error = (message as { error?: unknown }).error;
      if (span === undefined) return;
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: error instanceof Error ? error.message : String(error),
      });
      if (error instanceof Error) span.setAttribute(SemconvAttributes.ERROR_TYPE, error.name);
    },
  };
}

export function traceIoredis(options: IoredisTracingOptions): IoredisTracing {
  const { tracer } = options;
  const requireParent = options.requireParentSpan ?? true;
  const parentOk = () => {
    if (!requireParent) return true;
    // A valid parent only: a placeholder span (e.g. a dropped BullMQ poll span) must not start a trace.
    const parent = trace.getSpanContext(context.active());
    return parent !== undefined && trace.isSpanContextValid(parent);
  };
  const commandChannel = tracingChannel<CommandMessage>("ioredis:command");
  const batchChannel = tracingChannel<BatchMessage>("ioredis:batch");
  const commandSubscribers = subscribers<CommandMessage>((message) => {
    if (!parentOk()) return undefined;
    const operation = message.command.toUpperCase();
    return tracer.startSpan(`redis ${operation}`, {
      kind: SpanKind.CLIENT,
      attributes: {
        [SemconvAttributes.DB_SYSTEM_NAME]: "redis",
        [SemconvAttributes.DB_OPERATION_NAME]: operation,
        [SemconvAttributes.DB_QUERY_TEXT]: queryText(message),
        "db.namespace": String(message.database),
        [SemconvAttributes.SERVER_ADDRESS]: message.serverAddress,
        ...(message.serverPort === undefined ? {} : { [SemconvAttributes.SERVER_PORT]: message.serverPort }),
      },
    });
  });
  const batchSubscribers = subscribers<BatchMessage>((message) => {
    if (!parentOk()) return undefined;
    // "batch" keeps it apart from the span of the MULTI command itself.
    return tracer.startSpan(`redis ${message.batchMode} batch`, {
      kind: SpanKind.CLIENT,
      attributes: {
        [SemconvAttributes.DB_SYSTEM_NAME]: "redis",
        [SemconvAttributes.DB_OPERATION_NAME]: message.batchMode,
        "db.operation.batch.size": message.batchSize,
        "db.namespace": String(message.database),
        [SemconvAttributes.SERVER_ADDRESS]: message.serverAddress,
      },
    });
  });
  commandChannel.subscribe(commandSubscribers);
  batchChannel.subscribe(batchSubscribers);
  return {
    close() {
      commandChannel.unsubscribe(commandSubscribers);
      batchChannel.unsubscribe(batchSubscribers);
    },
  };
}
