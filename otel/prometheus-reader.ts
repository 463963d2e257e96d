/**
 * A pull MetricReader that renders the Prometheus text format on demand, for the gateway's
 * `/metrics` route. It is always attached to the broker's MeterProvider, whatever the OTEL_*
 * settings, so Prometheus can scrape a broker that exports nothing over OTLP.
 *
 * The text is produced by @opentelemetry/exporter-prometheus's serializer (the SDK's own mapping:
 * dots become underscores, monotonic sums get `_total`, histograms `_bucket/_sum/_count`), without
 * starting that package's HTTP server. Scope labels are left out (every metric comes from the
 * broker's one meter); `target_info` carries the resource (service.name, service.instance.id).
 */
import type { PrometheusSerializer as PrometheusSerializerType } from "@opentelemetry/exporter-prometheus";
import { MetricReader } from "@opentelemetry/sdk-metrics";
import { requireSdkNodeDependency } from "./sdk-node-packages.js";

type SerializerModule = { PrometheusSerializer: typeof PrometheusSerializerType };

export class PrometheusPullReader extends MetricReader {
  readonly #serializer: PrometheusSerializerType;

  constructor() {
    super();
    const { PrometheusSerializer } = requireSdkNodeDependency<SerializerModule>(
      "@opentelemetry/exporter-prometheus",
    );
    // (prefix, appendTimestamp, withResourceConstantLabels, withoutTargetInfo, withoutScopeInfo)
    this.#serializer = new PrometheusSerializer(undefined, false, undefined, false, true);
  }

  /** The current values of every instrument, in the Prometheus text exposition format 0.0.4. */
  async render(): Promise<string> {
    const { resourceMetrics } = await this.collect();
    return this.#serializer.serialize(resourceMetrics);
  }

  protected override async onForceFlush(): Promise<void> {}

  protected override async onShutdown(): Promise<void> {}
}

/** The Content-Type to serve `render()` with. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
