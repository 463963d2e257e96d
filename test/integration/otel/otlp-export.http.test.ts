import { SpanStatusCode } from "@opentelemetry/api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  AoAttributes,
  contextWithSpan,
  endRequestSpan,
  endUpstreamSpan,
  GitHubAttributes,
  InvocationTracker,
  startRequestSpan,
  startTelemetry,
  startUpstreamSpan,
  type Telemetry,
  withBatchFlushSpan,
  withLifecycleCycleSpan,
  withLifecycleStepSpan,
  withSpan,
} from "../../../otel/index.js";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "../../support/otlp-receiver.js";

const PAT = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
const CUSTOM_SECRET = "s3cr3t-webhook-value-42";

function byName(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const span = spans.find((s) => s.name === name);
  if (span === undefined)
    throw new Error(`no span named ${name}; got ${spans.map((s) => s.name).join(", ")}`);
  return span;
}

describe("OTLP export", () => {
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

  describe.each([{ protocol: "http/json" }, { protocol: "http/protobuf" }])(
    "when the protocol is $protocol",
    ({ protocol }) => {
      it("exports the invocation → gateway request → upstream span tree with its attributes", async () => {
        telemetry = startTelemetry({
          env: {
            OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
            OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
            OTEL_SERVICE_NAME: "ao-broker-test",
            OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test",
          },
          secrets: () => [PAT, CUSTOM_SECRET],
        });
        const { tracer } = telemetry;
        const tracker = new InvocationTracker({ tracer, secrets: () => [PAT] });
        tracker.begin({
          invocationId: "inv-1",
          args: ["pr", "checks", "1"],
          sessionId: "ta-12",
          projectId: "widgets",
          cwd: "/work/ta-12",
        });
        const request = startRequestSpan(
          tracer,
          {
            requestId: "req-1",
            method: "POST",
            path: "/graphql",
            operationName: "PullRequestByNumber",
            operationType: "query",
            sessionId: "ta-12",
            projectId: "widgets",
            invocationId: "inv-1",
            command: "gh.pr.checks",
            priority: "interactive",
          },
          tracker.parentContext("inv-1"),
        );
        // The upstream call's parent is the request span, passed explicitly (as the broker does).
        const upstream = startUpstreamSpan(
          tracer,
          {
            method: "POST",
            url: `https://x-access-token:${PAT}@api.github.com/graphql?access_token=${PAT}`,
            resource: "graphql",
            operationName: "PullRequestByNumber",
          },
          contextWithSpan(request),
        );
        // Secrets put into attributes on purpose: none may arrive.
        upstream.setAttribute("test.leak.pat", `Authorization: token ${PAT}`);
        upstream.setAttribute("test.leak.custom", `webhook=${CUSTOM_SECRET}`);
        upstream.setAttribute("test.leak.array", ["fine", PAT]);
        upstream.addEvent(`retrying with ${PAT}`, { detail: PAT });
        endUpstreamSpan(upstream, {
          status: 200,
          graphqlCost: 1,
          rateLimit: { limit: 5000, remaining: 4990, reset: 1_700_000_000, resource: "graphql" },
        });
        endRequestSpan(request, { status: 200, cache: "MISS", cost: 1, resource: "graphql", waitedMs: 12.4 });
        tracker.addResponse("inv-1", {
          method: "POST",
          path: "/graphql",
          status: 200,
          cost: 1,
          cache: "MISS",
        });
        tracker.end("inv-1", { exitCode: 1, durationMs: 250 });
        await telemetry.forceFlush();

        const spans = await receiver.waitForSpans((s) => s.length >= 3);
        const invocation = byName(spans, "gh pr checks");
        const gateway = byName(spans, "graphql PullRequestByNumber");
        const up = byName(spans, "upstream graphql PullRequestByNumber");

        expect(invocation.parentSpanId).toBeUndefined();
        expect(gateway.parentSpanId).toBe(invocation.spanId);
        expect(up.parentSpanId).toBe(gateway.spanId);
        expect(new Set([invocation.traceId, gateway.traceId, up.traceId]).size).toBe(1);

        expect(invocation.attributes).toMatchObject({
          [AoAttributes.INVOCATION_ID]: "inv-1",
          [AoAttributes.SESSION_ID]: "ta-12",
          [AoAttributes.PROJECT_ID]: "widgets",
          [AoAttributes.COMMAND]: "gh.pr.checks",
          [AoAttributes.ARGV]: ["pr", "checks", "1"],
          "process.working_directory": "/work/ta-12",
          "process.exit.code": 1,
          [AoAttributes.COST_CHARGED]: 1,
        });
        expect(invocation.status.code).toBe(SpanStatusCode.ERROR);
        expect(Number(invocation.endTimeUnixNano - invocation.startTimeUnixNano) / 1e6).toBeCloseTo(250, 0);

        expect(gateway.kind).toBe(2);
        expect(gateway.attributes).toMatchObject({
          "http.request.method": "POST",
          "http.response.status_code": 200,
          "graphql.operation.name": "PullRequestByNumber",
          [AoAttributes.SESSION_ID]: "ta-12",
          [AoAttributes.INVOCATION_ID]: "inv-1",
          [AoAttributes.CACHE_RESULT]: "MISS",
          [AoAttributes.COST_CHARGED]: 1,
          [AoAttributes.QUEUE_WAIT_MS]: 12,
          [AoAttributes.PRIORITY]: "interactive",
          [GitHubAttributes.RESOURCE]: "graphql",
        });
        // Flags appear only when true.
        expect(gateway.attributes).not.toHaveProperty(AoAttributes.BATCHED);
        expect(gateway.attributes).not.toHaveProperty(AoAttributes.COALESCED);

        expect(up.kind).toBe(3);
        expect(up.attributes).toMatchObject({
          "http.request.method": "POST",
          "http.response.status_code": 200,
          "server.address": "api.github.com",
          "server.port": 443,
          [GitHubAttributes.GRAPHQL_COST]: 1,
          [GitHubAttributes.RATELIMIT_REMAINING]: 4990,
        });
        expect(up.attributes["url.full"]).toBe("https://api.github.com/graphql?access_token=REDACTED");
        expect(up.attributes["test.leak.pat"]).toBe("Authorization: [REDACTED]");
        expect(up.attributes["test.leak.custom"]).toBe("webhook=[REDACTED]");
        expect(up.attributes["test.leak.array"]).toEqual(["fine", "[REDACTED]"]);

        expect(invocation.resource).toMatchObject({
          "service.name": "ao-broker-test",
          "deployment.environment": "test",
        });
        for (const body of receiver.rawBodies()) {
          expect(body).not.toContain(PAT);
          expect(body).not.toContain(CUSTOM_SECRET);
        }
        const contentTypes = new Set(receiver.requests().map((r) => r.contentType));
        expect([...contentTypes]).toEqual([
          protocol === "http/json" ? "application/json" : "application/x-protobuf",
        ]);
      });
    },
  );

  describe("when a batch flush serves several sessions", () => {
    it("links the flush span to every member request span and each member back to the flush", async () => {
      telemetry = startTelemetry({
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
      });
      const { tracer } = telemetry;
      const members = ["a", "b", "c"].map((session) =>
        startRequestSpan(tracer, {
          requestId: `r-${session}`,
          method: "POST",
          path: "/graphql",
          sessionId: session,
        }),
      );
      await withBatchFlushSpan(tracer, { members, resource: "graphql" }, async () => {
        const upstream = startUpstreamSpan(tracer, { method: "POST", url: "https://api.github.com/graphql" });
        endUpstreamSpan(upstream, { status: 200, graphqlCost: 1 });
      });
      for (const member of members) endRequestSpan(member, { status: 200, cache: "BATCHED", cost: 0.33 });
      await telemetry.forceFlush();
      const spans = await receiver.waitForSpans((s) => s.length >= 5);
      const flush = byName(spans, "ao.batch.flush");
      const memberSpans = spans.filter((s) => s.name === "graphql anonymous");
      expect(flush.parentSpanId).toBeUndefined();
      expect(flush.attributes[AoAttributes.BATCH_SIZE]).toBe(3);
      expect(flush.links.map((l) => l.spanId).sort()).toEqual(memberSpans.map((s) => s.spanId).sort());
      for (const member of memberSpans) {
        expect(member.links.map((l) => l.spanId)).toEqual([flush.spanId]);
        expect(member.attributes[AoAttributes.BATCHED]).toBe(true);
      }
      expect(byName(spans, "upstream graphql anonymous").parentSpanId).toBe(flush.spanId);
    });
  });

  describe("when a lifecycle cycle runs guards and a batch", () => {
    it("exports the cycle as a root span with guard and batch children", async () => {
      telemetry = startTelemetry({
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
      });
      const { tracer } = telemetry;
      await withLifecycleCycleSpan(tracer, { sessions: 2, prs: 2 }, async () => {
        await withLifecycleStepSpan(tracer, "guard", { "ao.lifecycle.repo": "acme/widgets" }, async () => {});
        await withLifecycleStepSpan(
          tracer,
          "batch",
          () => ({ [AoAttributes.BATCH_SIZE]: 2 }),
          async () => {},
        );
      });
      await expect(
        withSpan(tracer, "failing", undefined, async () => {
          throw new Error(`boom ${PAT}`);
        }),
      ).rejects.toThrow("boom");
      await telemetry.forceFlush();
      const spans = await receiver.waitForSpans((s) => s.length >= 4);
      const cycle = byName(spans, "ao.lifecycle.cycle");
      expect(cycle.parentSpanId).toBeUndefined();
      expect(cycle.attributes).toMatchObject({
        [AoAttributes.LIFECYCLE_PRS]: 2,
        [AoAttributes.LIFECYCLE_SESSIONS]: 2,
      });
      expect(byName(spans, "ao.lifecycle.guard").parentSpanId).toBe(cycle.spanId);
      expect(byName(spans, "ao.lifecycle.batch").attributes[AoAttributes.BATCH_SIZE]).toBe(2);
      const failing = byName(spans, "failing");
      expect(failing.status.code).toBe(SpanStatusCode.ERROR);
      expect(failing.status.message).toBe("boom [REDACTED]");
      expect(failing.events[0]?.attributes["exception.message"]).toBe("boom [REDACTED]");
    });
  });
});
