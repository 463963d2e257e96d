/**
 * BullMQ's `telemetry` option (bullmq 6: Queue/Worker `{ telemetry }`, interface in
 * bullmq/dist/esm/interfaces/telemetry.d.ts) implemented over our Tracer and Meter. With it, adding
 * an upstream job creates a PRODUCER span, the job carries its traceparent in its options, and the
 * worker's `process` CONSUMER span continues that trace, possibly in another broker. So the
 * gateway request → queue → upstream call chain stays one trace across the queue hop.
 *
 * Why not the bullmq-otel package: it takes the tracer and meter from OTel's global providers and
 * propagates through the global propagator, which this project deliberately does not register
 * (telemetry.ts). This adapter uses the Telemetry passed in, carries context as a plain W3C
 * traceparent, and drops BullMQ's root INTERNAL spans (getNextJob, extendLocks, …: one trace every
 * poll would bury the useful ones), keeping producer/consumer spans and anything with a parent.
 */
import {
  type Attributes,
  type Context,
  context,
  type Exception,
  INVALID_SPAN_CONTEXT,
  type Meter,
  ROOT_CONTEXT,
  type Span,
  type SpanKind,
  type TimeInput,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type {
  ContextManager as BullContextManager,
  Meter as BullMeter,
  Span as BullSpan,
  SpanOptions as BullSpanOptions,
  Telemetry as BullTelemetry,
} from "bullmq";
import { isTracingDisabled } from "./disabled-tracer.js";
import { extractTraceparent, injectTraceparent } from "./trace-context.js";

export interface BullmqTelemetryOptions {
  readonly tracer: Tracer;
  /** BullMQ's own job metrics (bullmq.jobs.completed, bullmq.job.duration, …) when given. */
  readonly meter?: Meter | undefined;
}

/** BullMQ's numeric SpanKind (its enum mirrors OTel's values). */
const PRODUCER = 3;
const CONSUMER = 4;

class SpanAdapter implements BullSpan<Context> {
  readonly span: Span;

  constructor(span: Span) {
    this.span = span;
  }

  setSpanOnContext(ctx: Context): Context {
    return trace.setSpan(ctx, this.span);
  }

  setAttribute(key: string, value: Parameters<BullSpan["setAttribute"]>[1]): void {
    this.span.setAttribute(key, value);
  }

  setAttributes(attributes: Parameters<BullSpan["setAttributes"]>[0]): void {
    this.span.setAttributes(attributes as Attributes);
  }

  addEvent(name: string, attributes?: Parameters<BullSpan["addEvent"]>[1]): void {
    this.span.addEvent(name, attributes as Attributes | undefined);
  }

  recordException(exception: Parameters<BullSpan["recordException"]>[0], time?: unknown): void {
    this.span.recordException(exception as Exception, time as TimeInput | undefined);
  }

  end(): void {
    this.span.end();
  }
}

/** A BullMQ `telemetry` option, or undefined when tracing is off (BullMQ then skips all of it). */
export function createBullmqTelemetry(options: BullmqTelemetryOptions): BullTelemetry<Context> | undefined {
  const { tracer } = options;
  if (isTracingDisabled(tracer)) return undefined;
  const contextManager: BullContextManager<Context> = {
    with: (ctx, fn) => context.with(ctx, fn),
    active: () => context.active(),
    // BullMQ runs its endless loops (stalled-job checker) detached, so they do not grow one trace forever.
    root: () => ROOT_CONTEXT,
    getMetadata: (ctx) => injectTraceparent(ctx) ?? "",
    fromMetadata: (active, metadata) => extractTraceparent(metadata === "" ? undefined : metadata, active),
  };
  const telemetry: BullTelemetry<Context> = {
    tracer: {
      startSpan(name: string, spanOptions?: BullSpanOptions, ctx?: Context): BullSpan<Context> {
        const parent = ctx ?? context.active();
        const kind = spanOptions?.kind ?? 0;
        const messaging = kind === PRODUCER || kind === CONSUMER;
        const parentContext = trace.getSpanContext(parent);
        if (!messaging && (parentContext === undefined || !trace.isSpanContextValid(parentContext))) {
          // Root INTERNAL span (a poll, a lock renewal): not worth a trace of its own.
          return new SpanAdapter(trace.wrapSpanContext(INVALID_SPAN_CONTEXT));
        }
        return new SpanAdapter(tracer.startSpan(name, { kind: kind as SpanKind }, parent));
      },
    },
    contextManager,
  };
  if (options.meter !== undefined) telemetry.meter = options.meter as unknown as BullMeter;
  return telemetry;
}
