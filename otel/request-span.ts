/**
 * The gateway span of one request, kept off the response's path. A cache hit answers in a few
 * hundred microseconds, and starting, filling and ending an SDK span inside that time was most of
 * what tracing added to it (docs/observability.md, "Overhead"). So a RequestSpan only notes when
 * the request began; the SDK span is started the first time something needs it as a parent (an
 * upstream call, a batch flush), backdated to that moment, and otherwise not until the request has
 * ended. Ending records the end time at once and leaves the SDK's work (attributes, end, the span
 * processor) to afterResponses, which runs it once the event loop has written the responses of
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

const pending: (() => void)[] = [];
let scheduled = false;

/**
 * Runs `work` after the I/O of this event-loop turn (setImmediate), so responses written in this
 * turn leave before it. Work that throws is dropped: a span must never fail a request.
 */
function afterResponses(work: () => void): void {
  pending.push(work);
  if (scheduled) return;
  scheduled = true;
  setImmediate(runDeferredSpanWork);
}

/** Runs the span work afterResponses queued; forceFlush and close call it before exporting. */
export function runDeferredSpanWork(): void {
  scheduled = false;
  for (const work of pending.splice(0)) {
    try {
      work();
    } catch {
      // dropped, see afterResponses
    }
  }
}

export class RequestSpan {
  readonly #tracer: Tracer;
  readonly #info: GatewayRequestInfo;
  readonly #parent: Context | undefined;
  readonly #startTime = performance.now();
  #started: { readonly span: Span; readonly context: Context } | undefined;

  constructor(tracer: Tracer, info: GatewayRequestInfo, parent: Context | undefined) {
    this.#tracer = tracer;
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
    afterResponses(() => endRequestSpan(this.span, outcome, endTime));
  }

  #start(): { readonly span: Span; readonly context: Context } {
    if (this.#started === undefined) {
      const span = startRequestSpan(this.#tracer, this.#info, this.#parent, this.#startTime);
      this.#started = { span, context: contextWithSpan(span, this.#parent) };
    }
    return this.#started;
  }
}
