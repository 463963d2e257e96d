/**
 * Telemetry and the broker's observability for the composition root: telemetry from the OTEL_*
 * variables unless the caller brings its own (then the caller closes it), the BrokerObservability
 * that turns requests, invocations and lifecycle cycles into spans, metrics and AO trace rows, and
 * the gauges it samples from the budget and the queue once both run.
 */
import { startTelemetry, type Telemetry } from "../../otel/index.js";
import { BROKER_VERSION, type BrokerContext } from "../broker-context.js";
import type { BudgetGate } from "../budget/index.js";
import type { SessionStats } from "../sessions/session-stats.js";
import type { UpstreamQueue } from "../upstream/index.js";
import { BrokerObservability, type GaugeSources } from "./observability.js";

export function startBrokerTelemetry(context: BrokerContext, given: Telemetry | undefined): Telemetry {
  if (given) return given;
  const telemetry = startTelemetry({
    env: context.env,
    serviceVersion: BROKER_VERSION,
    secrets: context.secrets,
    logger: context.logger.child({ component: "otel" }),
    // A span per Redis command triples the spans of a cache hit and costs more than the hit
    // itself; opt in when debugging Redis (AO_BROKER_TRACE_REDIS=1).
    traceRedis: context.env.AO_BROKER_TRACE_REDIS === "1",
  });
  context.shutdown.add("telemetry", () => telemetry.close());
  return telemetry;
}

export function startBrokerObservability(
  context: BrokerContext,
  parts: { readonly telemetry: Telemetry; readonly stats: SessionStats; readonly upstreamUrl: string },
): BrokerObservability {
  const observability = new BrokerObservability({
    telemetry: parts.telemetry,
    stats: parts.stats,
    logger: context.logger,
    upstreamUrl: parts.upstreamUrl,
    env: context.env,
    secrets: context.secrets,
  });
  context.shutdown.add("observability", () => observability.close());
  return observability;
}

/** What the gauges read: the global buckets, the queue's depth per lane, the active sessions. */
export function gaugeSources(gate: BudgetGate, queue: UpstreamQueue): GaugeSources {
  return {
    budget: async () =>
      (await gate.globalView()).map((v) => ({
        resource: v.resource,
        limit: v.limit,
        remaining: v.remaining,
        used: v.used,
        reset: v.reset,
      })),
    queue: async () => {
      const q = await queue.stats();
      const depth: Record<string, number> = {};
      for (const [lane, counts] of Object.entries(q.lanes))
        depth[lane] = (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0);
      return { depth, pausesStarted: q.pausesStarted };
    },
    activeSessions: async () => (await gate.sessionSpend()).filter((s) => s.active).length,
  };
}
