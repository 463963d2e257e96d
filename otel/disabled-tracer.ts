/**
 * The tracer a broker gets when tracing is off. It hands out one shared non-recording span and
 * runs callbacks directly (no context switch), and it is a distinct class so that withSpan and the
 * other helpers can recognise it and skip even building their attribute objects: with tracing off,
 * a traced call costs one `instanceof` check.
 */
import {
  type Context,
  INVALID_SPAN_CONTEXT,
  type Span,
  type SpanOptions,
  type Tracer,
  trace,
} from "@opentelemetry/api";

export class DisabledTracer implements Tracer {
  readonly #span: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

  startSpan(_name: string, _options?: SpanOptions, _context?: Context): Span {
    return this.#span;
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    context: Context,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(...args: unknown[]): ReturnType<F> {
    const fn = args[args.length - 1] as F;
    return fn(this.#span) as ReturnType<F>;
  }
}

/** True when spans from `tracer` can never be recorded (tracing is off). */
export function isTracingDisabled(tracer: Tracer): boolean {
  return tracer instanceof DisabledTracer;
}
