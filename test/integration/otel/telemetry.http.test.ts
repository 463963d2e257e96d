import { Writable } from "node:stream";
import { SpanKind } from "@opentelemetry/api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger, isAoError } from "../../../common/index.js";
import {
  DisabledTracer,
  endRequestSpan,
  isTracingDisabled,
  OtelErrors,
  startRequestSpan,
  startTelemetry,
  type Telemetry,
  withSpan,
} from "../../../otel/index.js";
import { type OtlpReceiver, startOtlpReceiver } from "../../support/otlp-receiver.js";

describe("startTelemetry", () => {
  let receiver: OtlpReceiver;
  let telemetry: Telemetry | undefined;

  beforeEach(async () => {
    receiver = await startOtlpReceiver();
  });

  afterEach(async () => {
    await telemetry?.close();
    telemetry = undefined;
    await receiver.close();
  });

  describe("when no OTLP endpoint is configured", () => {
    it("returns a disabled tracer whose spans never record, and exports nothing", async () => {
      telemetry = startTelemetry({ env: {} });
      expect(telemetry.tracingEnabled).toBe(false);
      expect(telemetry.otlpMetricsEnabled).toBe(false);
      expect(telemetry.tracer).toBeInstanceOf(DisabledTracer);
      expect(isTracingDisabled(telemetry.tracer)).toBe(true);
      let built = false;
      const result = await withSpan(
        telemetry.tracer,
        "x",
        () => {
          built = true;
          return { a: 1 };
        },
        (span) => {
          expect(span.isRecording()).toBe(false);
          return 42;
        },
      );
      expect(result).toBe(42);
      expect(built).toBe(false);
      const span = startRequestSpan(telemetry.tracer, {
        requestId: "r",
        method: "GET",
        path: "/user",
        sessionId: "s",
      });
      expect(span.isRecording()).toBe(false);
      endRequestSpan(span, { status: 200, cache: "HIT", cost: 0 });
      telemetry.instruments.recordRequest({ resource: "core", cache: "HIT", cost: 0, durationMs: 1 });
      expect(await telemetry.renderPrometheus()).toContain("ao_broker_requests_total");
      await telemetry.forceFlush();
      expect(receiver.requests()).toEqual([]);
    });

    it("stays off with OTEL_SDK_DISABLED even when an endpoint is set", async () => {
      telemetry = startTelemetry({
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SDK_DISABLED: "true" },
      });
      expect(telemetry.tracingEnabled).toBe(false);
      await withSpan(telemetry.tracer, "x", undefined, () => undefined);
      await telemetry.forceFlush();
      expect(receiver.requests()).toEqual([]);
    });
  });

  describe("when the sampler drops every trace", () => {
    it("creates non-recording spans and skips their attributes", async () => {
      telemetry = startTelemetry({
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
          OTEL_TRACES_SAMPLER: "always_off",
        },
      });
      let built = false;
      await withSpan(
        telemetry.tracer,
        "x",
        () => {
          built = true;
          return {};
        },
        (span) => expect(span.isRecording()).toBe(false),
      );
      expect(built).toBe(false);
      await telemetry.forceFlush();
      expect(receiver.spans()).toEqual([]);
    });
  });

  describe("when an OTEL_* value is invalid", () => {
    it("throws AO_ERR_OTEL_CONFIG_INVALID naming the variable", () => {
      let caught: unknown;
      try {
        startTelemetry({
          env: { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
        });
      } catch (error) {
        caught = error;
      }
      expect(isAoError(caught, OtelErrors.AO_ERR_OTEL_CONFIG_INVALID)).toBe(true);
      expect((caught as Error).message).toContain("OTEL_EXPORTER_OTLP_PROTOCOL=grpc");
    });
  });

  describe("when OTLP metrics are configured", () => {
    it.each([{ protocol: "http/json" }, { protocol: "http/protobuf" }])(
      "pushes the instruments over $protocol",
      async ({ protocol }) => {
        telemetry = startTelemetry({
          env: {
            OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
            OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
            OTEL_TRACES_EXPORTER: "none",
          },
        });
        expect(telemetry.tracingEnabled).toBe(false);
        expect(telemetry.otlpMetricsEnabled).toBe(true);
        telemetry.instruments.recordRequest({
          sessionId: "ta-1",
          command: "gh.pr.view",
          resource: "graphql",
          cache: "MISS",
          cost: 1,
          durationMs: 10,
        });
        telemetry.instruments.setBudget({
          resource: "graphql",
          limit: 5000,
          remaining: 4999,
          used: 1,
          reset: 1_700_000_000,
        });
        await telemetry.forceFlush();
        const points = receiver.dataPoints();
        const spend = points.find((p) => p.metric === "ao_broker.spend.points");
        expect(spend).toMatchObject({
          kind: "sum",
          unit: "{point}",
          value: 1,
          attributes: { session: "ta-1", command: "gh.pr.view" },
        });
        expect(points.find((p) => p.metric === "ao_broker.budget.remaining")).toMatchObject({
          kind: "gauge",
          value: 4999,
        });
        expect(points.find((p) => p.metric === "ao_broker.request.duration")).toMatchObject({
          kind: "histogram",
          count: 1,
        });
        expect(spend?.resource["service.name"]).toBe("ao-broker");
      },
    );
  });

  describe("when the collector rejects exports", () => {
    it("reports the failure through the logger once instead of throwing", async () => {
      const failing = await startOtlpReceiver({ failWith: 400 });
      const lines: string[] = [];
      const destination = new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      });
      telemetry = startTelemetry({
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: failing.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
        logger: createLogger({ destination, level: "warn" }),
      });
      for (let i = 0; i < 3; i++) {
        await withSpan(telemetry.tracer, `s${i}`, undefined, () => undefined, { kind: SpanKind.INTERNAL });
        await telemetry.forceFlush();
      }
      await failing.close();
      expect(failing.requests().length).toBeGreaterThanOrEqual(3);
      const warnings = lines.filter((l) => l.includes("OTLP export failed"));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('"signal":"traces"');
    });
  });

  describe("when close() is called twice", () => {
    it("flushes once and resolves both times", async () => {
      telemetry = startTelemetry({
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
      });
      await withSpan(telemetry.tracer, "last", undefined, () => undefined);
      await Promise.all([telemetry.close(), telemetry.close()]);
      expect(receiver.spans().map((s) => s.name)).toEqual(["last"]);
      telemetry = undefined;
    });
  });
});
