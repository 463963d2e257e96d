/**
 * Wrappers around the OTLP exporters, the last stop before data leaves the process.
 *
 * SecretGuardSpanExporter is the guarantee behind "no PAT or token value in any attribute": every
 * span is checked at export time (on the batch processor's schedule, off the request path) and any
 * string in its name, attributes, event attributes (exception messages!), link attributes or status
 * message that holds a token-shaped value or a registered secret is replaced by [REDACTED]. Checking
 * at export rather than at setAttribute means no call site can forget it, including third-party
 * spans (BullMQ, ioredis) that share our tracer.
 *
 * Both wrappers also report failed exports (a wrong endpoint, a collector that is down) to a
 * callback, because the SDK otherwise only tells OTel's global diag logger, which we do not set.
 */
import type { Attributes, AttributeValue, Link, SpanStatus } from "@opentelemetry/api";
import type { PushMetricExporter, ResourceMetrics } from "@opentelemetry/sdk-metrics";
import type { ReadableSpan, SpanExporter, TimedEvent } from "@opentelemetry/sdk-trace-base";
import { containsSecret, scrubText } from "./core/secret-scrub.js";

/** ExportResultCode.SUCCESS of @opentelemetry/core (not a declared dependency; the enum value is 0). */
const EXPORT_SUCCESS = 0;

type ExportResult = Parameters<Parameters<SpanExporter["export"]>[1]>[0];
export type ExportFailureReporter = (signal: "traces" | "metrics", error: Error | undefined) => void;

function scrubValue(
  value: AttributeValue | undefined,
  secrets: readonly string[],
): AttributeValue | undefined {
  if (typeof value === "string") return scrubText(value, secrets);
  if (Array.isArray(value)) {
    return (value as readonly unknown[]).map((item) =>
      typeof item === "string" ? scrubText(item, secrets) : item,
    ) as AttributeValue;
  }
  return value;
}

function valueNeedsScrub(value: AttributeValue | undefined, secrets: readonly string[]): boolean {
  if (typeof value === "string") return containsSecret(value, secrets);
  if (Array.isArray(value)) {
    return (value as readonly unknown[]).some(
      (item) => typeof item === "string" && containsSecret(item, secrets),
    );
  }
  return false;
}

function attributesNeedScrub(attributes: Attributes | undefined, secrets: readonly string[]): boolean {
  if (attributes === undefined) return false;
  for (const key in attributes) if (valueNeedsScrub(attributes[key], secrets)) return true;
  return false;
}

function scrubAttributes(attributes: Attributes, secrets: readonly string[]): Attributes {
  const out: Attributes = {};
  for (const key in attributes) out[key] = scrubValue(attributes[key], secrets);
  return out;
}

function spanNeedsScrub(span: ReadableSpan, secrets: readonly string[]): boolean {
  return (
    containsSecret(span.name, secrets) ||
    (span.status.message !== undefined && containsSecret(span.status.message, secrets)) ||
    attributesNeedScrub(span.attributes, secrets) ||
    span.events.some(
      (event) => containsSecret(event.name, secrets) || attributesNeedScrub(event.attributes, secrets),
    ) ||
    span.links.some((link) => attributesNeedScrub(link.attributes, secrets))
  );
}

/** A copy of `span` with every secret replaced; spans without secrets are passed through as they are. */
export function scrubSpan(span: ReadableSpan, secrets: readonly string[]): ReadableSpan {
  if (!spanNeedsScrub(span, secrets)) return span;
  const status: SpanStatus =
    span.status.message === undefined
      ? span.status
      : { ...span.status, message: scrubText(span.status.message, secrets) };
  const events: TimedEvent[] = span.events.map((event) => ({
    ...event,
    name: scrubText(event.name, secrets),
    ...(event.attributes === undefined ? {} : { attributes: scrubAttributes(event.attributes, secrets) }),
  }));
  const links: Link[] = span.links.map((link) =>
    link.attributes === undefined ? link : { ...link, attributes: scrubAttributes(link.attributes, secrets) },
  );
  return {
    name: scrubText(span.name, secrets),
    kind: span.kind,
    spanContext: () => span.spanContext(),
    ...(span.parentSpanContext === undefined ? {} : { parentSpanContext: span.parentSpanContext }),
    startTime: span.startTime,
    endTime: span.endTime,
    status,
    attributes: scrubAttributes(span.attributes, secrets),
    links,
    events,
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

export class SecretGuardSpanExporter implements SpanExporter {
  readonly #inner: SpanExporter;
  readonly #secrets: () => readonly string[];
  readonly #onFailure: ExportFailureReporter;

  constructor(inner: SpanExporter, secrets: () => readonly string[], onFailure: ExportFailureReporter) {
    this.#inner = inner;
    this.#secrets = secrets;
    this.#onFailure = onFailure;
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    const secrets = this.#secrets();
    const safe = spans.map((span) => scrubSpan(span, secrets));
    this.#inner.export(safe, (result) => {
      if (result.code !== EXPORT_SUCCESS) this.#onFailure("traces", result.error);
      resultCallback(result);
    });
  }

  shutdown(): Promise<void> {
    return this.#inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.#inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** Reports failed metric exports; everything else is the inner exporter's. */
export function reportingMetricExporter(
  inner: PushMetricExporter,
  onFailure: ExportFailureReporter,
): PushMetricExporter {
  const wrapped: PushMetricExporter = {
    export(metrics: ResourceMetrics, resultCallback) {
      inner.export(metrics, (result) => {
        if (result.code !== EXPORT_SUCCESS) onFailure("metrics", result.error);
        resultCallback(result);
      });
    },
    forceFlush: () => inner.forceFlush(),
    shutdown: () => inner.shutdown(),
  };
  if (inner.selectAggregationTemporality) {
    wrapped.selectAggregationTemporality = inner.selectAggregationTemporality.bind(inner);
  }
  if (inner.selectAggregation) wrapped.selectAggregation = inner.selectAggregation.bind(inner);
  return wrapped;
}
