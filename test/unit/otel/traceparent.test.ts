import { ROOT_CONTEXT, TraceFlags, trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { formatTraceparent, parseTraceparent } from "../../../otel/core/traceparent.js";
import { extractTraceparent, injectTraceparent } from "../../../otel/index.js";

const VALUE = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("traceparent", () => {
  it("parses and formats the W3C example", () => {
    const parts = parseTraceparent(VALUE);
    expect(parts).toEqual({
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
      traceFlags: 1,
    });
    expect(parts && formatTraceparent(parts)).toBe(VALUE);
  });

  it.each([
    "",
    "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
    "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
    "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
    "not-a-traceparent",
  ])("rejects %j", (value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });

  it("injects from and extracts into an OTel context", () => {
    const ctx = extractTraceparent(VALUE);
    const spanContext = trace.getSpanContext(ctx);
    expect(spanContext).toMatchObject({
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      isRemote: true,
      traceFlags: TraceFlags.SAMPLED,
    });
    expect(injectTraceparent(ctx)).toBe(VALUE);
    expect(injectTraceparent(ROOT_CONTEXT)).toBeUndefined();
    expect(extractTraceparent("garbage", ROOT_CONTEXT)).toBe(ROOT_CONTEXT);
  });
});
