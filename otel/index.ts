/**
 * otel/: the observability layer. Other folders import only from here.
 * Setup: startTelemetry → Telemetry { tracer, meter, instruments, renderPrometheus, close }.
 * Spans: withSpan and the request/upstream/batch/lifecycle helpers, InvocationTracker.
 * Files: AO's trace rows (AO_GH_TRACE_FILE), CallRecords and the trace report.
 * docs/observability.md documents every metric, span and attribute.
 */

export type { Context, Span, SpanContext } from "@opentelemetry/api";
export {
  type AoTraceWriter,
  type AoTraceWriterOptions,
  openAoTraceWriter,
  openAoTraceWriterFromEnv,
} from "./ao-trace-writer.js";
export {
  AoAttributes,
  CACHE_RESULT_VALUES,
  GitHubAttributes,
  SemconvAttributes,
  SpanNames,
} from "./attributes.js";
export { type BullmqTelemetryOptions, createBullmqTelemetry } from "./bullmq-telemetry.js";
export {
  type AoTraceRequestSummary,
  type AoTraceResponse,
  type AoTraceRow,
  type AoTraceRowInput,
  addResponse as addAoTraceResponse,
  buildAoTraceRow,
  EMPTY_REQUEST_SUMMARY,
  serializeAoTraceRow,
} from "./core/ao-trace-row.js";
export { type CallRecord, decodeCallRecord, encodeCallRecord } from "./core/call-record.js";
export {
  BROKER_OPERATIONS,
  COMMAND_VOCABULARY,
  commandLabel,
  ghApiEndpoint,
  ghApiMethod,
  ghOperation,
} from "./core/command-name.js";
export { formatDurationMs } from "./core/duration.js";
export {
  findSamples,
  type PrometheusFamily,
  type PrometheusSample,
  type PrometheusScrape,
  parsePrometheusText,
  sumSamples,
} from "./core/prometheus-text.js";
export { redactArgs } from "./core/redact-args.js";
export { requestSpanName, routeTemplate, safeUrl } from "./core/route-template.js";
export { containsSecret, REDACTED, scrubText } from "./core/secret-scrub.js";
export { parseTelemetryEnv, type TelemetryConfig } from "./core/telemetry-config.js";
export {
  buildTraceReport,
  renderTraceReport,
  type TraceReport,
  type TraceReportBucket,
  type TraceReportOptions,
  type TraceReportRow,
} from "./core/trace-report.js";
export { DisabledTracer, isTracingDisabled } from "./disabled-tracer.js";
export { parseDuration } from "./duration.js";
export { type OtelErrorCode, OtelErrors } from "./errors.js";
export {
  type AoTraceSink,
  type InvocationExit,
  type InvocationInfo,
  InvocationTracker,
  type InvocationTrackerOptions,
} from "./invocation-tracker.js";
export { type IoredisTracing, type IoredisTracingOptions, traceIoredis } from "./ioredis-tracing.js";
export {
  type BrokerMetrics,
  type BrokerMetricsOptions,
  type BudgetMeasurement,
  createBrokerMetrics,
  type LifecycleCycleMeasurement,
  METRIC_DEFINITIONS,
  type MetricDefinition,
  type RequestMeasurement,
  type UpstreamMeasurement,
} from "./metrics.js";
export { PROMETHEUS_CONTENT_TYPE } from "./prometheus-reader.js";
export { DeferredSpanWork, RequestSpan } from "./request-span.js";
export {
  type AttributesInput,
  type BatchFlushInfo,
  contextWithSpan,
  endRequestSpan,
  endUpstreamSpan,
  type GatewayRequestInfo,
  type LifecycleCycleInfo,
  type RequestOutcome,
  recordSpanError,
  runInContext,
  spanIn,
  startRequestSpan,
  startUpstreamSpan,
  type UpstreamCallInfo,
  type UpstreamOutcome,
  type WithSpanOptions,
  withBatchFlushSpan,
  withLifecycleCycleSpan,
  withLifecycleStepSpan,
  withSpan,
} from "./spans.js";
export { startTelemetry, type Telemetry, type TelemetryOptions } from "./telemetry.js";
export { extractTraceparent, injectTraceparent } from "./trace-context.js";
