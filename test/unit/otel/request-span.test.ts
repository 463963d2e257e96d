import { SpanKind } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { AoAttributes, RequestSpan, SemconvAttributes } from "../../../otel/index.js";
import { DeferredSpanWork } from "../../../otel/request-span.js";

function memoryTracer() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { tracer: provider.getTracer("test"), exporter, deferred: new DeferredSpanWork() };
}

const info = {
  requestId: "r1",
  method: "get",
  path: "/repos/acme/widgets/pulls/1",
  sessionId: "s1",
  resource: "core",
};
const hit = { status: 200, cache: "HIT", cost: 0, resource: "core" };

function busyWait(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const ms = (span: ReadableSpan, which: "startTime" | "endTime") =>
  span[which][0] * 1_000 + span[which][1] / 1_000_000;

describe("RequestSpan", () => {
  it("starts and ends the SDK span only after the turn that answered, with the request's own times", async () => {
    const { tracer, exporter, deferred } = memoryTracer();
    const requestStarted = Date.now();
    const span = new RequestSpan(tracer, info, undefined, deferred);
    busyWait(30);
    span.end(hit);
    busyWait(60); // the rest of this turn: writing the response
    expect(exporter.getFinishedSpans()).toHaveLength(0);

    await nextTurn();
    const [exported] = exporter.getFinishedSpans();
    expect(exported?.kind).toBe(SpanKind.SERVER);
    expect(exported?.attributes).toMatchObject({
      [SemconvAttributes.HTTP_REQUEST_METHOD]: "GET",
      [SemconvAttributes.HTTP_RESPONSE_STATUS_CODE]: 200,
      [AoAttributes.CACHE_RESULT]: "HIT",
      [AoAttributes.SESSION_ID]: "s1",
    });
    const started = ms(exported as ReadableSpan, "startTime");
    expect(Math.abs(started - requestStarted)).toBeLessThan(25);
    // Ended when the request was answered, not when the deferred work ran 60 ms later.
    const duration = ms(exported as ReadableSpan, "endTime") - started;
    expect(duration).toBeGreaterThanOrEqual(29);
    expect(duration).toBeLessThan(85);
  });

  it("starts early, backdated, when a child needs it as its parent", async () => {
    const { tracer, exporter, deferred } = memoryTracer();
    const span = new RequestSpan(tracer, info, undefined, deferred);
    busyWait(20);
    const child = tracer.startSpan("upstream GET", { kind: SpanKind.CLIENT }, span.context);
    child.end();
    span.end({ ...hit, cache: "MISS", cost: 1 });
    deferred.run(); // what forceFlush does before exporting
    const [upstream, request] = exporter.getFinishedSpans();
    expect(request?.spanContext().spanId).toBe(span.span.spanContext().spanId);
    expect(upstream?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
    expect(upstream?.spanContext().traceId).toBe(request?.spanContext().traceId);
    expect(
      ms(upstream as ReadableSpan, "startTime") - ms(request as ReadableSpan, "startTime"),
    ).toBeGreaterThanOrEqual(19);
    await nextTurn();
    expect(exporter.getFinishedSpans()).toHaveLength(2);
  });

  it("records a failure as an exception event at the time the request failed", async () => {
    const { tracer, exporter, deferred } = memoryTracer();
    const span = new RequestSpan(tracer, info, undefined, deferred);
    span.end({ status: 0, cache: "BYPASS", cost: 0, error: new TypeError("boom") });
    const failedAt = Date.now();
    busyWait(40);
    await nextTurn();
    const [exported] = exporter.getFinishedSpans();
    const event = exported?.events[0];
    expect(event?.name).toBe("exception");
    expect(Math.abs((event?.time[0] ?? 0) * 1_000 + (event?.time[1] ?? 0) / 1e6 - failedAt)).toBeLessThan(25);
    expect(exported?.attributes[SemconvAttributes.ERROR_TYPE]).toBe("TypeError");
  });
});
