import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { fromSpanRecord, toSpanRecord } from "../../../otel/span-record.js";

/** Everything an OTLP exporter reads of a span, as plain data. */
function exported(span: ReadableSpan) {
  return {
    name: span.name,
    kind: span.kind,
    context: { ...span.spanContext(), traceState: span.spanContext().traceState?.serialize() },
    parent: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    duration: span.duration,
    status: span.status,
    attributes: span.attributes,
    links: span.links.map((l) => ({
      ...l,
      context: { ...l.context, traceState: l.context.traceState?.serialize() },
    })),
    events: span.events,
    scope: span.instrumentationScope,
    dropped: [span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount],
    ended: span.ended,
  };
}

describe("span records (what crosses to the export worker)", () => {
  it("come back as spans that export exactly like the originals, after a structured clone", () => {
    const memory = new InMemorySpanExporter();
    const resource = resourceFromAttributes({ "service.name": "ao-broker" });
    const provider = new BasicTracerProvider({
      resource,
      spanProcessors: [new SimpleSpanProcessor(memory)],
      spanLimits: { attributeCountLimit: 4 },
    });
    const tracer = provider.getTracer("ao-broker", "1.2.3");
    const parent = tracer.startSpan("gh pr checks");
    const child = tracer.startSpan(
      "GET /repos/{owner}/{repo}/pulls/{number}",
      {
        kind: SpanKind.SERVER,
        attributes: { "ao.session.id": "ta-1", "http.response.status_code": 200, "ao.batched": false },
        links: [{ context: parent.spanContext(), attributes: { "ao.link": "flush" } }],
      },
      trace.setSpan(ROOT_CONTEXT, parent),
    );
    child.setAttribute("ao.cost.charged", 1);
    child.setAttribute("over.the.limit", "dropped");
    child.addEvent("retry", { attempt: 2 });
    child.setStatus({ code: SpanStatusCode.ERROR, message: "upstream 502" });
    child.end();
    parent.end();

    const originals = memory.getFinishedSpans();
    expect(originals).toHaveLength(2);
    for (const original of originals) {
      const record = structuredClone(toSpanRecord(original));
      const rebuilt = fromSpanRecord(record, resource);
      expect(exported(rebuilt)).toEqual(exported(original));
      expect(rebuilt.resource).toBe(resource);
    }
    const rebuiltChild = fromSpanRecord(
      structuredClone(toSpanRecord(originals[0] as ReadableSpan)),
      resource,
    );
    expect(rebuiltChild.droppedAttributesCount).toBe(1);
    expect(rebuiltChild.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
  });
});
