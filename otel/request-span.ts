/**
 * The gateway span of one request, kept off the response's path. A cache hit answers in a few
 * hundred microseconds, and starting, filling and ending an SDK span inside that time was most of
 * what tracing added to it (docs/observability.md, "Overhead"). So a RequestSpan only notes when
 * the request began; the SDK span is started the first time something needs it as a parent (an
 * upstream call, a batch flush), backdated to that moment, and otherwise not until the request has
 * ended. Ending records the end time at once and leaves the SDK's work (attributes, end, the span
 * processor) to the telemetry's DeferredSpanWork, which runs it once the event loop has written the responses of
 * this turn. The exported span is the same either way: same start and end, parent, attributes.
 */
import type { Context, Span, Tracer } from "@opentelemetry/api";
import {
  contextWithSpan,
  endRequestSpan,
  type GatewayRequestInfo,
  type RequestOutcome,
  startRequestSpan,
} from "./spans.js";

/**
 * Span work deferred until after the I/O of the event-loop turn that queued it (setImmediate), so
 * responses written in that turn leave before it. One per Telemetry (its forceFlush and close run
 * what is pending before exporting), so two telemetries in one process never share a queue. Work
 * that throws is dropped: a span must never fail a request.
 */
export class DeferredSpanWork {
  #pending: (() => void)[] = [];
  #scheduled = false;

  defer(work: () => void): void {
    this.#pending.push(work);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.run());
  }

  /** Runs what is pending now. */
  run(): void {
    this.#scheduled = false;
    for (const work of this.#pending.splice(0)) {
      try {
        work();
      } catch {
        // dropped, see the class comment
      }
    }
  }
}

export class RequestSpan {
  readonly #tracer: Tracer;
  readonly #info: GatewayRequestInfo;
  readonly #parent: Context | undefined;
  readonly #deferred: DeferredSpanWork;
  readonly #startTime = performance.now();
  #started: { readonly span: Span; readonly context: Context } | undefined;

  constructor(
    tracer: Tracer,
    info: GatewayRequestInfo,
    parent: Context | undefined,
    deferred: DeferredSpanWork,
  ) {
    this.#tracer = tracer;
    this.#deferred = deferred;
    this.#info = info;
    this.#parent = parent;
  }

  /** The SDK span, started now (backdated to the request's start) if nothing needed it before. */
  get span(): Span {
    return this.#start().span;
  }

  /** A context holding the span: the parent for spans started under this request. */
  get context(): Context {
    return this.#start().context;
  }

  /** Ends the span with `outcome` as of now; the SDK does its part after the response is out. */
  end(outcome: RequestOutcome): void {
    const endTime = performance.now();
    this.#deferred.defer(() => endRequestSpan(this.span, outcome, endTime));
  }

  #start(): { readonly span: Span; readonly context: Context } {
    if (this.#started === undefined) {
      const span = startRequestSpan(this.#tracer, this.#info, this.#parent, this.#startTime);
      this.#started = { span, context: contextWithSpan(span, this.#parent) };
    }
    return this.#started;
  }
}
