import { describe, expect, it } from "vitest";
import {
  findSamples,
  METRIC_DEFINITIONS,
  parsePrometheusText,
  startTelemetry,
  sumSamples,
  type Telemetry,
} from "../../../otel/index.js";

/** The Prometheus series names a definition renders to (exporter-prometheus's mapping). */
function seriesName(def: { name: string; kind: string }): string {
  const base = def.name.replace(/\./g, "_");
  return def.kind === "counter" ? `${base}_total` : def.kind === "histogram" ? `${base}_count` : base;
}

async function scrape(telemetry: Telemetry) {
  const parsed = parsePrometheusText(await telemetry.renderPrometheus());
  expect(parsed.problems).toEqual([]);
  return parsed;
}

function recordOneOfEverything(telemetry: Telemetry): void {
  const m = telemetry.instruments;
  m.recordRequest({
    sessionId: "ta-1",
    command: "gh.pr.checks",
    resource: "graphql",
    cache: "MISS",
    cost: 2,
    durationMs: 120,
  });
  m.recordUpstream({ resource: "graphql", method: "POST", status: 200, durationMs: 80, cost: 2 });
  m.recordUpstreamRead({ reason: "moved", identical: false, points: 2, resource: "graphql" });
  m.setBudget({ resource: "graphql", limit: 5000, remaining: 4998, used: 2, reset: 1_700_003_600 });
  m.setQueueDepth("interactive", 3);
  m.recordQueueWait("interactive", 40);
  m.recordBatchFlush(25);
  m.recordLifecycleCycle({ durationMs: 900, ok: true, cost: { graphql: 1, core: 3 } });
  m.recordSecondaryLimitPause("core");
  m.recordInvocation("gh.pr.checks", "ok");
  m.setActiveSessions(7);
}

describe("broker metrics", () => {
  describe("when every instrument has recorded a value", () => {
    it("renders each documented metric with its type, unit and labels", async () => {
      const telemetry = startTelemetry({ env: {} });
      recordOneOfEverything(telemetry);
      const parsed = await scrape(telemetry);
      for (const def of Object.values(METRIC_DEFINITIONS)) {
        const family = parsed.families.get(seriesName(def).replace(/_count$/, ""));
        expect(family, def.name).toBeDefined();
        expect(family?.type, def.name).toBe(def.kind);
        expect(family?.unit, def.name).toBe(def.unit);
        const samples = findSamples(parsed, seriesName(def));
        expect(samples.length, def.name).toBeGreaterThan(0);
        for (const sample of samples) {
          const labels = Object.keys(sample.labels).filter((l) => l !== "le");
          expect(labels.sort(), def.name).toEqual([...def.attributes].sort());
        }
      }
      await telemetry.close();
    });

    it("renders values in the documented units (seconds, points, epoch seconds)", async () => {
      const telemetry = startTelemetry({ env: {} });
      recordOneOfEverything(telemetry);
      const parsed = await scrape(telemetry);
      expect(sumSamples(parsed, "ao_broker_request_duration_sum")).toBeCloseTo(0.12);
      expect(sumSamples(parsed, "ao_broker_queue_wait_sum", { priority: "interactive" })).toBeCloseTo(0.04);
      expect(sumSamples(parsed, "ao_broker_budget_reset", { resource: "graphql" })).toBe(1_700_003_600);
      expect(sumSamples(parsed, "ao_broker_budget_remaining", { resource: "graphql" })).toBe(4998);
      expect(sumSamples(parsed, "ao_broker_lifecycle_cycle_cost_sum", { resource: "core" })).toBe(3);
      expect(sumSamples(parsed, "ao_broker_batch_size_sum")).toBe(25);
      await telemetry.close();
    });
  });

  describe("when requests go through", () => {
    it("moves the request and spend counters by cache result, session and command", async () => {
      const telemetry = startTelemetry({ env: {} });
      const m = telemetry.instruments;
      const before = await scrape(telemetry);
      expect(sumSamples(before, "ao_broker_requests_total")).toBe(0);
      m.recordRequest({
        sessionId: "ta-1",
        command: "gh.pr.view",
        resource: "graphql",
        cache: "MISS",
        cost: 1,
        durationMs: 50,
      });
      m.recordRequest({
        sessionId: "ta-1",
        command: "gh.pr.view",
        resource: "graphql",
        cache: "HIT",
        cost: 0,
        durationMs: 1,
      });
      m.recordRequest({
        sessionId: "ta-2",
        command: "gh.run.list",
        resource: "core",
        cache: "REVALIDATED",
        cost: 0,
        durationMs: 30,
      });
      m.recordRequest({
        sessionId: "ta-2",
        command: "gh.made-up.thing",
        resource: "graphql",
        cache: "MISS",
        cost: 3,
        durationMs: 30,
      });
      const after = await scrape(telemetry);
      expect(sumSamples(after, "ao_broker_requests_total")).toBe(4);
      expect(sumSamples(after, "ao_broker_requests_total", { session: "ta-1", cache_result: "HIT" })).toBe(1);
      expect(
        sumSamples(after, "ao_broker_requests_total", { resource: "core", cache_result: "REVALIDATED" }),
      ).toBe(1);
      expect(
        sumSamples(after, "ao_broker_spend_points_total", { session: "ta-1", command: "gh.pr.view" }),
      ).toBe(1);
      expect(sumSamples(after, "ao_broker_spend_points_total", { session: "ta-2", command: "other" })).toBe(
        3,
      );
      // Free answers charge nothing: no spend series for ta-2's 304.
      expect(findSamples(after, "ao_broker_spend_points_total", { command: "gh.run.list" })).toEqual([]);
      await telemetry.close();
    });
  });

  describe("when 1,000 sessions make requests", () => {
    it("keeps the session label set bounded, folding the rest into other", async () => {
      const telemetry = startTelemetry({ env: {}, maxSessionLabels: 20 });
      for (let i = 0; i < 1000; i++) {
        telemetry.instruments.recordRequest({
          sessionId: `session-${i}`,
          command: "gh.pr.view",
          resource: "graphql",
          cache: "MISS",
          cost: 1,
          durationMs: 5,
        });
      }
      const parsed = await scrape(telemetry);
      const sessions = new Set(findSamples(parsed, "ao_broker_requests_total").map((s) => s.labels.session));
      expect(sessions.size).toBe(21);
      expect(sessions.has("other")).toBe(true);
      expect(sumSamples(parsed, "ao_broker_requests_total", { session: "other" })).toBe(980);
      expect(sumSamples(parsed, "ao_broker_spend_points_total")).toBe(1000);
      await telemetry.close();
    });
  });

  describe("when a label value is not from the bounded vocabulary", () => {
    it("never uses a token as a session label and maps odd resources, methods and cache results to other", async () => {
      const pat = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
      const telemetry = startTelemetry({ env: {}, secrets: () => [pat] });
      const m = telemetry.instruments;
      m.recordRequest({ sessionId: pat, resource: "GraphQL!", cache: "WEIRD", cost: 1, durationMs: 1 });
      m.recordUpstream({ resource: "core", method: "get; drop", status: 999, durationMs: 1 });
      const text = await telemetry.renderPrometheus();
      expect(text).not.toContain(pat);
      const parsed = parsePrometheusText(text);
      expect(
        sumSamples(parsed, "ao_broker_requests_total", {
          session: "redacted",
          resource: "other",
          cache_result: "other",
        }),
      ).toBe(1);
      expect(
        sumSamples(parsed, "ao_broker_upstream_requests_total", { method: "other", status_code: "other" }),
      ).toBe(1);
      await telemetry.close();
    });
  });
});
