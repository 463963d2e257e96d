import { describe, expect, it } from "vitest";
import { type AoTraceRow, DisabledTracer, InvocationTracker, startTelemetry } from "../../../otel/index.js";

function sinkTracker(now: { t: number }, options: { ttlMs?: number; maxOpen?: number } = {}) {
  const rows: AoTraceRow[] = [];
  const tracker = new InvocationTracker({
    tracer: new DisabledTracer(),
    traceSink: { append: (row) => rows.push(row) },
    now: () => now.t,
    ...options,
  });
  return { rows, tracker };
}

describe("InvocationTracker", () => {
  describe("when an invocation registers, makes requests and exits", () => {
    it("writes one AO row with the summed cost and the exit", () => {
      const now = { t: 1_000_000 };
      const { rows, tracker } = sinkTracker(now);
      tracker.begin({ invocationId: "i1", args: ["pr", "view", "5"], sessionId: "ta-1", cwd: "/w" });
      tracker.addResponse("i1", { method: "POST", path: "/graphql", status: 200, cost: 1, cache: "MISS" });
      tracker.addResponse("i1", { method: "POST", path: "/graphql", status: 200, cost: 0, cache: "HIT" });
      tracker.addResponse("unknown", { method: "GET", path: "/x", status: 200 });
      now.t += 700;
      const row = tracker.end("i1", { exitCode: 0, stdoutBytes: 10 });
      expect(rows).toEqual([row]);
      expect(row).toMatchObject({
        operation: "gh.pr.view",
        sessionId: "ta-1",
        ok: true,
        durationMs: 700,
        graphqlCost: 1,
        stdoutBytes: 10,
        broker: { requests: 2, pointsCharged: 1, cache: { MISS: 1, HIT: 1 } },
      });
      expect(tracker.size).toBe(0);
      expect(tracker.end("i1", { exitCode: 0 })).toBeUndefined();
    });
  });

  describe("when the shim never reports the exit", () => {
    it("ends the invocation as abandoned after the TTL and still writes its row", () => {
      const now = { t: 0 };
      const { rows, tracker } = sinkTracker(now, { ttlMs: 1000 });
      tracker.begin({ invocationId: "i1", args: ["run", "watch"], sessionId: "s" });
      now.t = 500;
      tracker.begin({ invocationId: "i2", args: ["pr", "view"], sessionId: "s" });
      now.t = 1200;
      expect(tracker.sweep()).toBe(1);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ operation: "gh.run.watch", ok: false, durationMs: 1200 });
      expect(rows[0]).not.toHaveProperty("exitCode");
      expect(tracker.size).toBe(1);
    });
  });

  describe("when more invocations are open than allowed", () => {
    it("evicts the oldest so memory stays bounded", async () => {
      const now = { t: 0 };
      const { rows, tracker } = sinkTracker(now, { maxOpen: 2 });
      for (const id of ["a", "b", "c"])
        tracker.begin({ invocationId: id, args: ["pr", "view"], sessionId: "s" });
      expect(tracker.size).toBe(2);
      expect(rows).toHaveLength(1);
      await tracker.close();
      expect(rows).toHaveLength(3);
      expect(tracker.size).toBe(0);
    });
  });

  describe("when tracing is off and there is no trace file", () => {
    it("keeps nothing", () => {
      const tracker = new InvocationTracker({ tracer: new DisabledTracer() });
      tracker.begin({ invocationId: "i1", args: ["pr", "view"], sessionId: "s" });
      expect(tracker.size).toBe(0);
      expect(tracker.parentContext("i1")).toBeUndefined();
      expect(tracker.end("i1", { exitCode: 0 })).toBeUndefined();
    });
  });

  describe("when metrics are attached", () => {
    it("counts invocations by command and outcome", async () => {
      const telemetry = startTelemetry({ env: {} });
      const tracker = new InvocationTracker({ tracer: telemetry.tracer, metrics: telemetry.instruments });
      tracker.begin({ invocationId: "ok", args: ["pr", "checks", "1"], sessionId: "s" });
      tracker.begin({ invocationId: "bad", args: ["pr", "checks", "1"], sessionId: "s" });
      tracker.end("ok", { exitCode: 0 });
      tracker.end("bad", { exitCode: 8 });
      const text = await telemetry.renderPrometheus();
      expect(text).toContain('ao_broker_invocations_total{command="gh.pr.checks",outcome="ok"} 1');
      expect(text).toContain('ao_broker_invocations_total{command="gh.pr.checks",outcome="error"} 1');
      await telemetry.close();
    });
  });
});
