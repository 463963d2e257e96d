/**
 * Per-call cost of the hot-path telemetry helpers with tracing off, sampled out, and on (exporting
 * over OTLP/HTTP protobuf to a collector stand-in in another process, so only the broker's side of
 * the work is measured), plus the always-on metric recording. Not a test: run with
 *   npx vitest bench --run test/integration/otel/telemetry-overhead.bench.ts
 * Results are in docs/BENCHMARKS.md ("Telemetry overhead").
 */
import { spawn } from "node:child_process";
import { afterAll, bench, describe } from "vitest";
import {
  endRequestSpan,
  endUpstreamSpan,
  InvocationTracker,
  startRequestSpan,
  startTelemetry,
  startUpstreamSpan,
  type Telemetry,
  withSpan,
} from "../../../otel/index.js";

// A collector stand-in: accepts every export and discards it, in its own process.
const sink = spawn(
  process.execPath,
  [
    "-e",
    `const s = require("node:http").createServer((q, r) => { q.resume(); q.on("end", () => r.end()); });
     s.listen(0, "127.0.0.1", () => console.log(s.address().port));`,
  ],
  { stdio: ["ignore", "pipe", "inherit"] },
);
const port = await new Promise<string>((resolve) =>
  sink.stdout.once("data", (d: Buffer) => resolve(d.toString().trim())),
);
const receiver = { url: `http://127.0.0.1:${port}` };
const off = startTelemetry({ env: {} });
const sampledOut = startTelemetry({
  env: {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_TRACES_SAMPLER: "always_off",
    OTEL_METRICS_EXPORTER: "none",
  },
});
// A queue large enough that no span is dropped at benchmark rates (the default 2,048 would drop
// most of them and hide the export cost); BatchSpanProcessor reads OTEL_BSP_* from process.env.
process.env.OTEL_BSP_MAX_QUEUE_SIZE = "2000000";
process.env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE = "2048";
process.env.OTEL_BSP_SCHEDULE_DELAY = "100";
const on = startTelemetry({
  env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_METRICS_EXPORTER: "none" },
  secrets: () => ["ghp_0123456789abcdefghijABCDEFGHIJ012345"],
});

afterAll(async () => {
  await Promise.all([off.close(), sampledOut.close(), on.close()]);
  sink.kill();
});

/** What the gateway does per request: a request span around an upstream span, then metrics. */
async function gatewayRequest(telemetry: Telemetry, i: number): Promise<void> {
  const { tracer } = telemetry;
  const request = startRequestSpan(tracer, {
    requestId: `r${i}`,
    method: "POST",
    path: "/graphql",
    operationName: "PullRequestByNumber",
    sessionId: "ta-12",
    invocationId: "inv",
    command: "gh.pr.view",
    priority: "interactive",
  });
  await withSpan(tracer, "pipeline", undefined, async () => {
    const upstream = startUpstreamSpan(tracer, {
      method: "POST",
      url: "https://api.github.com/graphql",
      resource: "graphql",
    });
    endUpstreamSpan(upstream, { status: 200, graphqlCost: 1 });
  });
  endRequestSpan(request, { status: 200, cache: "MISS", cost: 1, resource: "graphql", waitedMs: 1 });
}

function invocation(telemetry: Telemetry, i: number): void {
  const tracker = new InvocationTracker({ tracer: telemetry.tracer });
  tracker.begin({ invocationId: `i${i}`, args: ["pr", "view", "5"], sessionId: "ta-12" });
  tracker.addResponse(`i${i}`, { method: "POST", path: "/graphql", status: 200, cost: 1, cache: "MISS" });
  tracker.end(`i${i}`, { exitCode: 0 });
}

let n = 0;
describe("gateway request spans (request + pipeline + upstream)", () => {
  bench("tracing off", () => gatewayRequest(off, n++));
  bench("tracing on, sampled out", () => gatewayRequest(sampledOut, n++));
  bench("tracing on, exported", () => gatewayRequest(on, n++));
});

describe("gh invocation (begin, one response, end)", () => {
  bench("tracing off", () => invocation(off, n++));
  bench("tracing on, exported", () => invocation(on, n++));
});

describe("metrics (always on)", () => {
  bench("recordRequest", () => {
    off.instruments.recordRequest({
      sessionId: "ta-12",
      command: "gh.pr.view",
      resource: "graphql",
      cache: "MISS",
      cost: 1,
      durationMs: 12,
    });
  });
});
