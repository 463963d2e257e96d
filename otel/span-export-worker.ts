/**
 * Entry of the span export worker thread (started by worker-span-exporter.ts). It owns the OTLP
 * exporter: rebuilds each batch of span records into spans, scrubs secrets from them
 * (SecretGuardSpanExporter) and sends them, and answers every request with its result.
 */
import { parentPort, workerData } from "node:worker_threads";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { SecretGuardSpanExporter } from "./export-guards.js";
import { createSpanExporter } from "./otlp-span-exporter.js";
import { fromSpanRecord } from "./span-record.js";
import type { ExportWorkerData, FromExportWorker, ToExportWorker } from "./worker-span-exporter.js";

const port = parentPort;
if (port === null) throw new Error("span-export-worker runs as a worker thread");
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
