/**
 * A finished span as plain data, so that spans can cross to the export worker thread
 * (structured clone keeps arrays and plain objects, not methods or class instances), and back
 * into the ReadableSpan shape the OTLP exporters read. Only what those exporters read is kept.
 *
 * Invariant: fromSpanRecord(toSpanRecord(span), span.resource) exports exactly as `span` does.
 */
import type {
  Attributes,
  HrTime,
  Link,
  SpanContext,
  SpanKind,
  SpanStatus,
  TraceState,
} from "@opentelemetry/api";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace-base";

interface ContextRecord {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  readonly isRemote?: boolean;
  /** W3C tracestate, serialised. */
  readonly traceState?: string;
}

export interface SpanRecord {
  readonly name: string;
  readonly kind: SpanKind;
  readonly context: ContextRecord;
  readonly parent?: ContextRecord | undefined;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  readonly duration: HrTime;
  readonly status: SpanStatus;
  readonly attributes: Attributes;
  readonly links: readonly {
    readonly context: ContextRecord;
    readonly attributes?: Attributes;
    readonly droppedAttributesCount?: number;
  }[];
  readonly events: readonly TimedEvent[];
  readonly scope: ReadableSpan["instrumentationScope"];
  readonly dropped: readonly [attributes: number, events: number, links: number];
}

function contextRecord(c: SpanContext): ContextRecord {
  return {
    traceId: c.traceId,
    spanId: c.spanId,
    traceFlags: c.traceFlags,
    ...(c.isRemote === undefined ? {} : { isRemote: c.isRemote }),
    ...(c.traceState === undefined ? {} : { traceState: c.traceState.serialize() }),
  };
}

/** The serialised tracestate is all an exporter reads of a TraceState. */
function spanContext(c: ContextRecord): SpanContext {
  const { traceState, ...rest } = c;
  if (traceState === undefined) return rest;
  const state = { serialize: () => traceState } as unknown as TraceState;
  return { ...rest, traceState: state };
}

export function toSpanRecord(span: ReadableSpan): SpanRecord {
  return {
    name: span.name,
    kind: span.kind,
    context: contextRecord(span.spanContext()),
    ...(span.parentSpanContext === undefined ? {} : { parent: contextRecord(span.parentSpanContext) }),
    startTime: span.startTime,
    endTime: span.endTime,
    duration: span.duration,
    status: span.status,
    attributes: span.attributes,
    links: span.links.map((link) => ({
      context: contextRecord(link.context),
      ...(link.attributes === undefined ? {} : { attributes: link.attributes }),
      ...(link.droppedAttributesCount === undefined
        ? {}
        : { droppedAttributesCount: link.droppedAttributesCount }),
    })),
    events: span.events,
    scope: span.instrumentationScope,
    dropped: [span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount],
  };
}

export function fromSpanRecord(record: SpanRecord, resource: Resource): ReadableSpan {
  const context = spanContext(record.context);
  const links: Link[] = record.links.map((link) => ({ ...link, context: spanContext(link.context) }));
  return {
    name: record.name,
    kind: record.kind,
    spanContext: () => context,
    ...(record.parent === undefined ? {} : { parentSpanContext: spanContext(record.parent) }),
    startTime: record.startTime,
    endTime: record.endTime,
    duration: record.duration,
    status: record.status,
    attributes: record.attributes,
    links,
    events: [...record.events],
    ended: true,
    resource,
    instrumentationScope: record.scope,
    droppedAttributesCount: record.dropped[0],
    droppedEventsCount: record.dropped[1],
    droppedLinksCount: record.dropped[2],
  };
}
