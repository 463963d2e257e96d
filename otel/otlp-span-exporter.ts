/**
 * The OTLP span exporter for the configured protocol (http/protobuf by default, or http/json).
 * It runs in the export worker thread (span-export-worker.ts), never on the broker's event loop.
 */
import type { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { TelemetryConfig } from "./core/telemetry-config.js";
import { requireDeclared, requireSdkNodeDependency } from "./sdk-node-packages.js";

type TraceExporterModule = { OTLPTraceExporter: typeof OTLPTraceExporter };

export function createSpanExporter(config: NonNullable<TelemetryConfig["traces"]>): SpanExporter {
  const module =
    config.protocol === "http/json"
      ? requireDeclared<TraceExporterModule>("@opentelemetry/exporter-trace-otlp-http")
      : requireSdkNodeDependency<TraceExporterModule>("@opentelemetry/exporter-trace-otlp-proto");
  return new module.OTLPTraceExporter({ url: config.url });
}
