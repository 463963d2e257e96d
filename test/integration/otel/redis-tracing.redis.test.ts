import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  contextWithSpan,
  createBullmqTelemetry,
  endRequestSpan,
  endUpstreamSpan,
  runInContext,
  startRequestSpan,
  startTelemetry,
  startUpstreamSpan,
  type Telemetry,
  withSpan,
} from "../../../otel/index.js";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "../../support/otlp-receiver.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

function socketPath(url: string): string {
  return decodeURIComponent(new URL(url).pathname);
}

function named(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const span = spans.find((s) => s.name === name);
  if (span === undefined) throw new Error(`no span ${name}; got ${spans.map((s) => s.name).join(", ")}`);
  return span;
}

describe("Redis and BullMQ spans", () => {
  let redis: TestRedis;
  let receiver: OtlpReceiver;
  let telemetry: Telemetry;

  beforeAll(async () => {
    redis = await startTestRedis();
  });

  afterAll(async () => {
    await redis.stop();
  });

  beforeEach(async () => {
    receiver = await startOtlpReceiver();
    telemetry = startTelemetry({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
    });
  });

  afterEach(async () => {
    await telemetry.close();
    await receiver.close();
  });

  describe("when ioredis 6 runs commands inside a span", () => {
    it("records them as children from ioredis's diagnostics channels, and nothing outside spans", async () => {
      const client = new Redis({ path: socketPath(redis.url), lazyConnect: true });
      await client.connect();
      const key = `${redis.prefix()}:k`;
      await client.get(`${key}:outside`);
      await withSpan(telemetry.tracer, "parent", undefined, async () => {
        await client.set(key, "secret-value");
        await client.get(key);
        await client.multi().incr(`${key}:n`).incr(`${key}:n`).exec();
      });
      await client.quit();
      await telemetry.forceFlush();
      const spans = receiver.spans();
      const parent = named(spans, "parent");
      const set = named(spans, "redis SET");
      expect(set.parentSpanId).toBe(parent.spanId);
      expect(set.kind).toBe(3);
      expect(set.attributes).toMatchObject({
        "db.system.name": "redis",
        "db.operation.name": "SET",
        "db.query.text": `SET ${key} ?`,
        "server.address": socketPath(redis.url),
      });
      expect(named(spans, "redis GET").attributes["db.query.text"]).toBe(`GET ${key}`);
      expect(named(spans, "redis MULTI batch").attributes["db.operation.batch.size"]).toBe(2);
      expect(
        spans.filter((s) => s.name.startsWith("redis ")).every((s) => s.parentSpanId !== undefined),
      ).toBe(true);
      expect(JSON.stringify(receiver.rawBodies())).not.toContain("secret-value");
    });
  });

  describe("when a request enqueues an upstream job through BullMQ", () => {
    it("continues the request's trace through the producer and consumer spans to the upstream call", async () => {
      const bullTelemetry = createBullmqTelemetry({ tracer: telemetry.tracer });
      expect(bullTelemetry).toBeDefined();
      const prefix = redis.prefix();
      const connection = () => new Redis({ path: socketPath(redis.url), maxRetriesPerRequest: null });
      const queueConnection = connection();
      const workerConnection = connection();
      const queue = new Queue("upstream", {
        connection: queueConnection,
        prefix,
        ...(bullTelemetry ? { telemetry: bullTelemetry } : {}),
      });
      const processed = new Promise<void>((resolve, reject) => {
        const worker = new Worker(
          "upstream",
          async () => {
            const upstream = startUpstreamSpan(telemetry.tracer, {
              method: "GET",
              url: "https://api.github.com/user",
            });
            endUpstreamSpan(upstream, { status: 200 });
            return "done";
          },
          { connection: workerConnection, prefix, ...(bullTelemetry ? { telemetry: bullTelemetry } : {}) },
        );
        worker.on("completed", () => {
          worker.close().then(resolve, reject);
        });
        worker.on("failed", (_job, error) => reject(error));
      });
      const request = startRequestSpan(telemetry.tracer, {
        requestId: "r1",
        method: "GET",
        path: "/user",
        sessionId: "ta-1",
      });
      await runInContext(contextWithSpan(request), () => queue.add("call", { path: "/user" }));
      await processed;
      endRequestSpan(request, { status: 200, cache: "MISS", cost: 1 });
      await queue.close();
      queueConnection.disconnect();
      workerConnection.disconnect();
      await telemetry.forceFlush();

      const spans = receiver.spans();
      const gateway = named(spans, "GET /user");
      const producer = spans.find((s) => s.kind === 4);
      const consumer = spans.find((s) => s.kind === 5);
      const upstream = named(spans, "upstream GET /user");
      expect(producer?.parentSpanId).toBe(gateway.spanId);
      expect(consumer?.traceId).toBe(gateway.traceId);
      expect(consumer?.parentSpanId).toBe(producer?.spanId);
      expect(upstream.parentSpanId).toBe(consumer?.spanId);
      // BullMQ's polling (getNextJob) must not produce root spans of its own.
      const roots = spans.filter((s) => s.parentSpanId === undefined).map((s) => s.name);
      expect(roots).toEqual(["GET /user"]);
    });
  });

  describe("when tracing is off", () => {
    it("gives BullMQ no telemetry at all", () => {
      expect(createBullmqTelemetry({ tracer: startTelemetry({ env: {} }).tracer })).toBeUndefined();
    });
  });
});
