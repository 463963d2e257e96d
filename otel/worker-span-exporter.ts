/**
 * A SpanExporter that hands each batch to a worker thread (span-export-worker.ts) instead of
 * serialising and sending it on the broker's event loop. Measured on the gateway's cache hits,
 * OTLP serialisation and its garbage were the largest part of what tracing added to a request;
 * here the event loop only turns spans into plain records (span-record.ts), and the worker
 * scrubs secrets, encodes and sends them.
 *
 * Invariants: every export, flush and shutdown gets exactly one answer, also when the worker dies
 * (then a failed result; the next export starts a new worker); the worker holds the process open
 * only while an answer is awaited, so a shutdown's last batch is not lost to an early exit.
 */
import { Worker } from "node:worker_threads";
import type { Attributes } from "@opentelemetry/api";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { TelemetryConfig } from "./core/telemetry-config.js";
import type { ExportFailureReporter } from "./export-guards.js";
import { type SpanRecord, toSpanRecord } from "./span-record.js";

/** What the worker starts with. */
export interface ExportWorkerData {
  readonly traces: NonNullable<TelemetryConfig["traces"]>;
  readonly resourceAttributes: Attributes;
}

export type ToExportWorker =
  | {
      readonly type: "export";
      readonly id: number;
      readonly spans: readonly SpanRecord[];
      readonly secrets: readonly string[];
    }
  | { readonly type: "flush" | "shutdown"; readonly id: number };

export interface FromExportWorker {
  readonly id: number;
  readonly ok: boolean;
  readonly error?: string;
}

type ExportResult = Parameters<Parameters<SpanExporter["export"]>[1]>[0];
/** ExportResultCode of @opentelemetry/core (not a declared dependency). */
const SUCCESS = 0;
const FAILED = 1;

export interface WorkerSpanExporterOptions extends ExportWorkerData {
  /** Read at every export: the worker scrubs these from every span. */
  readonly secrets: () => readonly string[];
  readonly onFailure: ExportFailureReporter;
}

/**
 * The worker's entry: the bundled file beside dist/cli.js, or the TypeScript source when running
 * from source (tests, tsx), which a worker can only load with tsx's loader registered first.
 */
function startWorker(data: ExportWorkerData): Worker {
  if (!import.meta.url.endsWith(".ts")) {
    return new Worker(new URL("./otel-export-worker.js", import.meta.url), { workerData: data });
  }
  const entry = new URL("./span-export-worker.ts", import.meta.url).href;
  const tsx = import.meta.resolve("tsx/esm/api");
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true, workerData: data });
}

export class WorkerSpanExporter implements SpanExporter {
  readonly #options: WorkerSpanExporterOptions;
  readonly #pending = new Map<number, (answer: FromExportWorker) => void>();
  #worker: Worker | undefined;
  #nextId = 1;
  #shutDown = false;

  constructor(options: WorkerSpanExporterOptions) {
    this.#options = options;
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (this.#shutDown) {
      resultCallback({ code: FAILED, error: new Error("exporter is shut down") });
      return;
    }
    this.#ask(
      (id) => ({ type: "export", id, spans: spans.map(toSpanRecord), secrets: this.#options.secrets() }),
      (answer) => {
        if (answer.ok) {
          resultCallback({ code: SUCCESS });
          return;
        }
        const error = new Error(answer.error ?? "span export failed");
        this.#options.onFailure("traces", error);
        resultCallback({ code: FAILED, error });
      },
    );
  }

  forceFlush(): Promise<void> {
    if (this.#worker === undefined) return Promise.resolve();
    return new Promise((resolve) =>
      this.#ask(
        (id) => ({ type: "flush", id }),
        () => resolve(),
      ),
    );
  }

  async shutdown(): Promise<void> {
    if (this.#shutDown) return;
    this.#shutDown = true;
    const worker = this.#worker;
    if (worker === undefined) return;
    await new Promise<void>((resolve) =>
      this.#ask(
        (id) => ({ type: "shutdown", id }),
        () => resolve(),
      ),
    );
    this.#worker = undefined;
    await worker.terminate();
  }

  #ask(message: (id: number) => ToExportWorker, onAnswer: (answer: FromExportWorker) => void): void {
    const worker = this.#ensureWorker();
    const id = this.#nextId++;
    this.#pending.set(id, onAnswer);
    worker.ref();
    worker.postMessage(message(id));
  }

  #ensureWorker(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const worker = startWorker({
      traces: this.#options.traces,
      resourceAttributes: this.#options.resourceAttributes,
    });
    worker.unref();
    worker.on("message", (answer: FromExportWorker) => {
      const onAnswer = this.#pending.get(answer.id);
      this.#pending.delete(answer.id);
      if (this.#pending.size === 0) worker.unref();
      onAnswer?.(answer);
    });
    const lost = (why: string) => {
      if (this.#worker === worker) this.#worker = undefined;
      const waiting = [...this.#pending.values()];
      this.#pending.clear();
      for (const onAnswer of waiting) onAnswer({ id: 0, ok: false, error: why });
    };
    worker.on("error", (error) => lost(`span export worker failed: ${error.message}`));
    worker.on("exit", (code) => lost(`span export worker exited (${code})`));
    this.#worker = worker;
    return worker;
  }
}
