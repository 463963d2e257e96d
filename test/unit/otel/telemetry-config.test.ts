import { describe, expect, it } from "vitest";
import { parseTelemetryEnv } from "../../../otel/index.js";

function config(env: Record<string, string>) {
  const result = parseTelemetryEnv(env);
  if (!result.ok) throw new Error(result.problems.join("; "));
  return result.config;
}

function problems(env: Record<string, string>): readonly string[] {
  const result = parseTelemetryEnv(env);
  return result.ok ? [] : result.problems;
}

describe("parseTelemetryEnv", () => {
  describe("when no OTEL_* variable is set", () => {
    it("turns OTLP export off and keeps the defaults", () => {
      const c = config({});
      expect(c.traces).toBeUndefined();
      expect(c.metrics).toBeUndefined();
      expect(c.serviceName).toBe("ao-broker");
      expect(c.sampler).toEqual({ kind: "parentbased_always_on", ratio: 1 });
      expect(c.metricExportIntervalMs).toBe(60_000);
    });
  });

  describe("when an endpoint is set", () => {
    it.each([
      {
        name: "base endpoint gets the signal paths, protocol defaults to http/protobuf",
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://jaeger:4318" },
        traces: { url: "http://jaeger:4318/v1/traces", protocol: "http/protobuf" },
        metrics: { url: "http://jaeger:4318/v1/metrics", protocol: "http/protobuf" },
      },
      {
        name: "base endpoint with a path and trailing slash",
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: "https://collector.example/otlp/",
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        },
        traces: { url: "https://collector.example/otlp/v1/traces", protocol: "http/json" },
        metrics: { url: "https://collector.example/otlp/v1/metrics", protocol: "http/json" },
      },
      {
        name: "per-signal endpoints are used as given, with per-signal protocols",
        env: {
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t:4318/custom",
          OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        },
        traces: { url: "http://t:4318/custom", protocol: "http/json" },
        metrics: undefined,
      },
      {
        name: "OTEL_SDK_DISABLED wins over endpoints",
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://jaeger:4318", OTEL_SDK_DISABLED: "TRUE" },
        traces: undefined,
        metrics: undefined,
      },
      {
        name: "OTEL_TRACES_EXPORTER=none keeps metrics only; prometheus means no metric push",
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: "http://jaeger:4318",
          OTEL_TRACES_EXPORTER: "none",
          OTEL_METRICS_EXPORTER: "prometheus",
        },
        traces: undefined,
        metrics: undefined,
      },
    ])("$name", ({ env, traces, metrics }) => {
      const c = config(env);
      expect(c.traces).toEqual(traces);
      expect(c.metrics).toEqual(metrics);
    });
  });

  describe("when resource, service and sampler variables are set", () => {
    it("reads service name, percent-decoded resource attributes and the sampler", () => {
      const c = config({
        OTEL_RESOURCE_ATTRIBUTES: "service.name=from-attrs,deployment.environment=prod,team=a%2Cb",
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0.25",
        OTEL_METRIC_EXPORT_INTERVAL: "5000",
      });
      expect(c.serviceName).toBe("from-attrs");
      expect(c.resourceAttributes).toEqual({ "deployment.environment": "prod", team: "a,b" });
      expect(c.sampler).toEqual({ kind: "parentbased_traceidratio", ratio: 0.25 });
      expect(c.metricExportIntervalMs).toBe(5000);
      expect(
        config({ OTEL_SERVICE_NAME: "svc", OTEL_RESOURCE_ATTRIBUTES: "service.name=x" }).serviceName,
      ).toBe("svc");
    });
  });

  describe("when a value cannot be honoured", () => {
    it.each([
      {
        name: "grpc protocol",
        env: { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
        message: /OTEL_EXPORTER_OTLP_PROTOCOL=grpc.*4318/,
      },
      {
        name: "unknown sampler",
        env: { OTEL_TRACES_SAMPLER: "sometimes" },
        message: /OTEL_TRACES_SAMPLER=sometimes/,
      },
      {
        name: "ratio out of range",
        env: { OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "2" },
        message: /OTEL_TRACES_SAMPLER_ARG=2/,
      },
      {
        name: "not a URL",
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: "jaeger:4318" },
        message: /OTEL_EXPORTER_OTLP_ENDPOINT=jaeger:4318/,
      },
      {
        name: "not http",
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: "ftp://x" },
        message: /http:\/\/ or https:\/\//,
      },
      {
        name: "bad interval",
        env: { OTEL_METRIC_EXPORT_INTERVAL: "soon" },
        message: /OTEL_METRIC_EXPORT_INTERVAL=soon/,
      },
      { name: "bad boolean", env: { OTEL_SDK_DISABLED: "yes" }, message: /OTEL_SDK_DISABLED=yes/ },
      {
        name: "unknown exporter",
        env: { OTEL_TRACES_EXPORTER: "zipkin" },
        message: /OTEL_TRACES_EXPORTER=zipkin/,
      },
      {
        name: "malformed resource attribute",
        env: { OTEL_RESOURCE_ATTRIBUTES: "novalue" },
        message: /OTEL_RESOURCE_ATTRIBUTES/,
      },
    ])("reports $name naming the variable", ({ env, message }) => {
      const found = problems(env);
      expect(found.length).toBeGreaterThan(0);
      expect(found.join("; ")).toMatch(message);
    });
  });
});
