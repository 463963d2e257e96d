/**
 * Sets up OpenTelemetry for one broker process and hands back everything the rest of the code
 * needs as one object (tracer, meter, typed instruments, Prometheus rendering, close). Nothing is
 * registered as an OTel global provider: the Telemetry is passed in explicitly (docs/CONTRIBUTING.md, "Layout": one composition root), and
 * several can coexist in one process (tests, the bench running a broker in-process). The one
 * process-wide thing touched is OTel's context manager (AsyncLocalStorage), registered only for
 * Redis spans and the global-provider route (see TelemetryOptions.traceRedis); it carries no
 * configuration and is shared.
 *
 * Configuration comes from the standard OTEL_* variables (core/telemetry-config.ts). Without an
 * OTLP endpoint the tracer is a DisabledTracer and no exporter module is even loaded; metrics are
 * always collected for the Prometheus pull reader behind `renderPrometheus()`.
 *
 * Spans are encoded and sent by a worker thread (worker-span-exporter.ts), off the event loop.
 *
 * Invariants: close() flushes and shuts down exporters exactly once and is safe to call twice;
 * export failures are reported through the logger at most once a minute (a down collector must not
 * flood the log); no span leaves the process without passing SecretGuardSpanExporter (in the
 * export worker).
 */
import { randomUUID } from "node:crypto";
import { type ContextManager, context, type Meter, type Tracer, trace } from "@opentelemetry/api";
import type { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { defaultResource, type Resource, resourceFromAttributes } from "@opentelemetry/resources";
import {
  MeterProvider,
  type MetricReader,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from "@opentelemetry/sdk-metrics";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
} from "@opentelemetry/sdk-trace-base";
import { AoError, type Logger, silentLogger } from "../common/index.js";
import {
  type EnvLike,
  parseTelemetryEnv,
  type SamplerConfig,
  type TelemetryConfig,
} from "./core/telemetry-config.js";
import { DisabledTracer } from "./disabled-tracer.js";
import { OtelErrors } from "./errors.js";
import { type ExportFailureReporter, reportingMetricExporter } from "./export-guards.js";
import { type IoredisTracing, traceIoredis } from "./ioredis-tracing.js";
import { type BrokerMetrics, createBrokerMetrics } from "./metrics.js";
import { PrometheusPullReader } from "./prometheus-reader.js";
import { DeferredSpanWork } from "./request-span.js";
import { requireDeclared, requireSdkNodeDependency } from "./sdk-node-packages.js";
import { WorkerSpanExporter } from "./worker-span-exporter.js";

export interface TelemetryOptions {
  /** Where OTEL_* variables are read from. @defaultValue process.env */
  readonly env?: EnvLike;
  /** service.version on every span and metric. @defaultValue "0.0.0" */
  readonly serviceVersion?: string;
  /** service.instance.id (one per broker process). @defaultValue a random UUID */
  readonly instanceId?: string;
  /** Values that must never be exported (the PAT, the webhook secret); read at export time. @defaultValue none */
  readonly secrets?: () => readonly string[];
  /** Distinct sessions with their own metric label. @defaultValue 50 */
  readonly maxSessionLabels?: number;
  /** Receives export failures (rate-limited). @defaultValue a silent logger */
  readonly logger?: Logger;
  /**
   * Redis spans from ioredis's diagnostics channels while tracing is on. They need an async context
   * manager (AsyncLocalStorage) to find their parent, which on Node 20 taxes every promise of the
   * process, so it is registered only with this or registerGlobalTracerProvider; the broker's own
   * spans pass their parents explicitly. @defaultValue true
   */
  readonly traceRedis?: boolean;
  /**
   * Also make this the OTel API's global tracer provider, for instrumentations that report there
   * (otel/register.ts). Only one Telemetry per process may do this. @defaultValue false
   */
  readonly registerGlobalTracerProvider?: boolean;
}

export interface Telemetry {
  /** Spans are exported (an OTLP traces endpoint is configured). */
  readonly tracingEnabled: boolean;
  /**
   * Spans started here also need their parent made active (context.with), because an async context
   * manager is registered for Redis spans or global instrumentations (see traceRedis).
   */
  readonly tracksActiveContext: boolean;
  /** Metrics are pushed over OTLP too (Prometheus pull is always on). */
  readonly otlpMetricsEnabled: boolean;
  readonly config: TelemetryConfig;
  readonly tracer: Tracer;
  readonly meter: Meter;
  readonly instruments: BrokerMetrics;
  /** Where RequestSpans leave their SDK work until the response is out; flushed before exporting. */
  readonly deferredSpans: DeferredSpanWork;
  /** Current metric values in the Prometheus text format (serve with PROMETHEUS_CONTENT_TYPE). */
  renderPrometheus(): Promise<string>;
  /** Exports everything buffered now (tests; before a planned exit). Never rejects. */
  forceFlush(): Promise<void>;
  /** Flushes and shuts down exporters; idempotent. */
  close(): Promise<void>;
}

const INSTRUMENTATION_SCOPE = "ao-broker";
const FAILURE_LOG_INTERVAL_MS = 60_000;

type MetricExporterModule = { OTLPMetricExporter: typeof OTLPMetricExporter };
type ContextHooksModule = { AsyncLocalStorageContextManager: new () => ContextManager };

function createSampler(config: SamplerConfig): Sampler {
  switch (config.kind) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(config.ratio);
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.ratio) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

function createMetricExporter(config: NonNullable<TelemetryConfig["metrics"]>): PushMetricExporter {
  const module =
    config.protocol === "http/json"
      ? requireDeclared<MetricExporterModule>("@opentelemetry/exporter-metrics-otlp-http")
      : requireSdkNodeDependency<MetricExporterModule>("@opentelemetry/exporter-metrics-otlp-proto");
  return new module.OTLPMetricExporter({ url: config.url });
}

function createResource(config: TelemetryConfig, options: TelemetryOptions): Resource {
  return defaultResource().merge(
    resourceFromAttributes({
      ...config.resourceAttributes,
      "service.name": config.serviceName,
      "service.version": options.serviceVersion ?? "0.0.0",
      "service.instance.id": options.instanceId ?? randomUUID(),
    }),
  );
}

/** Logs the first export failure at once, then at most one summary a minute. */
function failureReporter(logger: Logger): ExportFailureReporter {
  let lastLoggedAt = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  return (signal, error) => {
    const now = Date.now();
    if (now - lastLoggedAt < FAILURE_LOG_INTERVAL_MS) {
      suppressed++;
      return;
    }
    logger.warn({ signal, err: error, suppressed }, "OTLP export failed");
    lastLoggedAt = now;
    suppressed = 0;
  };
}

function ensureContextManager(): void {
  const { AsyncLocalStorageContextManager } = requireSdkNodeDependency<ContextHooksModule>(
    "@opentelemetry/context-async-hooks",
  );
  const manager = new AsyncLocalStorageContextManager();
  // Returns false (and keeps the first) when another Telemetry in this process registered one.
  if (!context.setGlobalContextManager(manager.enable())) manager.disable();
}

export function startTelemetry(options: TelemetryOptions = {}): Telemetry {
  const parsed = parseTelemetryEnv(options.env ?? process.env);
  if (!parsed.ok) {
    throw new AoError(
      OtelErrors.AO_ERR_OTEL_CONFIG_INVALID,
      `OpenTelemetry configuration: ${parsed.problems.join("; ")}`,
      { data: { problems: parsed.problems } },
    );
  }
  const { config } = parsed;
  const secrets = options.secrets ?? (() => []);
  const reportFailure = failureReporter(options.logger ?? silentLogger());
  const resource = createResource(config, options);

  let tracerProvider: BasicTracerProvider | undefined;
  let tracer: Tracer = new DisabledTracer();
  let redisTracing: IoredisTracing | undefined;
  let tracksActiveContext = false;
  if (config.traces !== undefined) {
    const traceRedis = options.traceRedis ?? true;
    tracksActiveContext = traceRedis || options.registerGlobalTracerProvider === true;
    if (tracksActiveContext) ensureContextManager();
    const exporter = new WorkerSpanExporter({
      traces: config.traces,
      resourceAttributes: resource.attributes,
      secrets,
      onFailure: reportFailure,
    });
    tracerProvider = new BasicTracerProvider({
      resource,
      sampler: createSampler(config.sampler),
      spanProcessors: [new BatchSpanProcessor(exporter)],
    });
    tracer = tracerProvider.getTracer(INSTRUMENTATION_SCOPE, options.serviceVersion);
    if (traceRedis) redisTracing = traceIoredis({ tracer });
    if (options.registerGlobalTracerProvider === true) trace.setGlobalTracerProvider(tracerProvider);
  }

  const prometheus = new PrometheusPullReader();
  const metricReaders: MetricReader[] = [prometheus];
  if (config.metrics !== undefined) {
    metricReaders.push(
      new PeriodicExportingMetricReader({
        exporter: reportingMetricExporter(createMetricExporter(config.metrics), reportFailure),
        exportIntervalMillis: config.metricExportIntervalMs,
        exportTimeoutMillis: Math.min(config.metricExportTimeoutMs, config.metricExportIntervalMs),
      }),
    );
  }
  const meterProvider = new MeterProvider({ resource, readers: metricReaders });
  const meter = meterProvider.getMeter(INSTRUMENTATION_SCOPE, options.serviceVersion);
  const instruments = createBrokerMetrics(meter, {
    secrets,
    ...(options.maxSessionLabels === undefined ? {} : { maxSessionLabels: options.maxSessionLabels }),
  });

  let closing: Promise<void> | undefined;
  const deferredSpans = new DeferredSpanWork();
  return {
    deferredSpans,
    tracingEnabled: config.traces !== undefined,
    tracksActiveContext,
    otlpMetricsEnabled: config.metrics !== undefined,
    config,
    tracer,
    meter,
    instruments,
    renderPrometheus: () => prometheus.render(),
    async forceFlush() {
      deferredSpans.run();
      // Failures were already reported through the logger; flushing must not throw at shutdown.
      await Promise.allSettled([tracerProvider?.forceFlush(), meterProvider.forceFlush()]);
    },
    close() {
      closing ??= (async () => {
        deferredSpans.run();
        redisTracing?.close();
        if (options.registerGlobalTracerProvider === true) trace.disable();
        await Promise.allSettled([tracerProvider?.shutdown(), meterProvider.shutdown()]);
      })();
      return closing;
    },
  };
}
