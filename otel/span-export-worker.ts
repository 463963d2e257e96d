/**
 * Entry of the span export worker thread (started by worker-span-exporter.ts). It owns the OTLP
 * exporter: rebuilds each batch of span records into spans, scrubs secrets from them
 * (SecretGuardSpanExporter) and sends them, and answers every request with its result.
 */
import { setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { SecretGuardSpanExporter } from "./export-guards.js";
import { createSpanExporter } from "./otlp-span-exporter.js";
import { fromSpanRecord } from "./span-record.js";
import type { ExportWorkerData, FromExportWorker, ToExportWorker } from "./worker-span-exporter.js";

/** The export thread's nice value (19 is the lowest priority). */
const EXPORT_THREAD_NICE = 19;

const port = parentPort;
if (port === null) throw new Error("span-export-worker runs as a worker thread");
// Exporting is background work: on a machine with few cores it should wait for the broker's
// request path, not compete with it. On Linux a priority set with pid 0 applies to the calling
// thread only (this worker); elsewhere it may apply to the process, so it is left alone there.
if (process.platform === "linux") {
  try {
    setPriority(0, EXPORT_THREAD_NICE);
  } catch {
    // not permitted here: the thread runs at normal priority
  }
}
const data = workerData as ExportWorkerData;
const resource = resourceFromAttributes(data.resourceAttributes);
let secrets: readonly string[] = [];
// Failures are reported by the main thread, from each answer's result code.
const exporter = new SecretGuardSpanExporter(
  createSpanExporter(data.traces),
  () => secrets,
  () => undefined,
);

const answer = (message: FromExportWorker) => port.postMessage(message);
const settle = (id: number, work: Promise<void>) =>
  work.then(
    () => answer({ id, ok: true }),
    (error: unknown) =>
      answer({ id, ok: false, error: error instanceof Error ? error.message : String(error) }),
  );

port.on("message", (message: ToExportWorker) => {
  switch (message.type) {
    case "export":
      secrets = message.secrets;
      exporter.export(
        message.spans.map((record) => fromSpanRecord(record, resource)),
        (result) =>
          answer({
            id: message.id,
            ok: result.code === 0,
            ...(result.error === undefined ? {} : { error: result.error.message }),
          }),
      );
      break;
    case "flush":
      void settle(message.id, exporter.forceFlush());
      break;
    case "shutdown":
      void settle(message.id, exporter.shutdown());
      break;
  }
});
