/**
 * Carries a span context across hops OTel does not instrument for us: a BullMQ job (possibly
 * picked up by another broker), an IPC message, a child process environment (TRACEPARENT). Uses
 * the W3C traceparent format directly instead of the global propagator, which we never register
 * (several Telemetry instances may live in one process; see telemetry.ts).
 */
import { type Context, ROOT_CONTEXT, TraceFlags, trace } from "@opentelemetry/api";
import { formatTraceparent, parseTraceparent } from "./core/traceparent.js";

/** `traceparent` of the span active in `ctx`, or undefined when there is none (or it is invalid). */
export function injectTraceparent(ctx: Context): string | undefined {
  const spanContext = trace.getSpanContext(ctx);
  if (spanContext === undefined || !trace.isSpanContextValid(spanContext)) return undefined;
  return formatTraceparent(spanContext);
}

/** A context whose parent is the remote span named by `traceparent` (or `base` unchanged when invalid). */
export function extractTraceparent(traceparent: string | undefined, base: Context = ROOT_CONTEXT): Context {
  const parts = parseTraceparent(traceparent);
  if (parts === undefined) return base;
  return trace.setSpanContext(base, {
    traceId: parts.traceId,
    spanId: parts.spanId,
    traceFlags: parts.traceFlags & TraceFlags.SAMPLED,
    isRemote: true,
  });
}
