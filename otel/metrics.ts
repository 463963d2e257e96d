/**
 * The broker's metric instruments, created once per Telemetry, and the typed functions the broker
 * calls to record into them, so metric names, units and label sets live in exactly one place.
 * `METRIC_DEFINITIONS` is also what docs/observability.md documents (a test keeps them in step) and
 * what the Grafana dashboard queries (another test checks every queried series exists).
 *
 * Names follow OTel conventions (dot-separated namespace `ao_broker.`, unit in `unit`, not in the
 * name; counters without `_total`); the Prometheus rendering turns `ao_broker.spend.points` into
 * `ao_broker_spend_points_total`. Cardinality is bounded by construction: sessions through
 * SessionLabeler (first N, then "other"), commands through a fixed vocabulary, resources and cache
 * results through fixed patterns. No label ever carries a token.
 */
import type { Counter, Gauge, Histogram, Meter } from "@opentelemetry/api";
import { CACHE_RESULT_VALUES } from "./attributes.js";
import { commandLabel } from "./core/command-name.js";
import { SessionLabeler } from "./core/session-labeler.js";

export type MetricKind = "counter" | "gauge" | "histogram";

export interface MetricDefinition {
  readonly name: string;
  readonly kind: MetricKind;
  readonly unit: string;
  readonly attributes: readonly string[];
  readonly description: string;
  readonly buckets?: readonly number[];
}

const SECONDS_FAST = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const SECONDS_WAIT = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
const SECONDS_CYCLE = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120];
const POINTS_CYCLE = [0, 1, 2, 3, 5, 10, 25, 50, 100, 250];
const BATCH_SIZES = [1, 2, 5, 10, 25, 50, 100];

export const METRIC_DEFINITIONS = {
  requests: {
    name: "ao_broker.requests",
    kind: "counter",
    unit: "{request}",
    attributes: ["session", "resource", "cache_result"],
    description:
      "Requests the gateway answered (agents, AO and the lifecycle poller), by how they were served.",
  },
  spendPoints: {
    name: "ao_broker.spend.points",
    kind: "counter",
    unit: "{point}",
    attributes: ["session", "command", "resource"],
    description:
      "Cost charged to callers: GraphQL points (resource=graphql) or REST requests (resource=core, search). Cache hits and 304s are free; a batched query's cost is split.",
  },
  requestDuration: {
    name: "ao_broker.request.duration",
    kind: "histogram",
    unit: "s",
    attributes: ["resource", "cache_result"],
    description: "Time from receiving a request to answering it, queue wait included.",
    buckets: SECONDS_FAST,
  },
  upstreamRequests: {
    name: "ao_broker.upstream.requests",
    kind: "counter",
    unit: "{request}",
    attributes: ["resource", "method", "status_code"],
    description: "Requests sent to GitHub (or the simulator), by HTTP status.",
  },
  upstreamDuration: {
    name: "ao_broker.upstream.duration",
    kind: "histogram",
    unit: "s",
    attributes: ["resource"],
    description: "Latency of upstream GitHub calls.",
    buckets: SECONDS_FAST,
  },
  upstreamCost: {
    name: "ao_broker.upstream.cost",
    kind: "counter",
    unit: "{point}",
    attributes: ["resource"],
    description:
      "What GitHub charged the token for upstream calls (GraphQL rateLimit.cost, 1 per REST request, 0 for a 304).",
  },
  upstreamReads: {
    name: "ao_broker.upstream.reads",
    kind: "counter",
    unit: "{request}",
    attributes: ["reason", "identical", "resource"],
    description:
      "Reads that went to GitHub, by why (absent, moved, unvouched, vouch-old, revalidate, bypass, refresh, signal) and whether the new body equalled the answer stored before for the same key (identical: true/false).",
  },
  upstreamReadPoints: {
    name: "ao_broker.upstream.read_points",
    kind: "counter",
    unit: "{point}",
    attributes: ["reason", "identical", "resource"],
    description:
      "What those reads cost: GraphQL points (a merged query's share) or REST requests (0 for a 304), by the same reason and identical attributes.",
  },
  budgetLimit: {
    name: "ao_broker.budget.limit",
    kind: "gauge",
    unit: "{point}",
    attributes: ["resource"],
    description: "GitHub's hourly limit for the bucket (x-ratelimit-limit).",
  },
  budgetRemaining: {
    name: "ao_broker.budget.remaining",
    kind: "gauge",
    unit: "{point}",
    attributes: ["resource"],
    description: "What is left of the bucket in the current window (x-ratelimit-remaining).",
  },
  budgetUsed: {
    name: "ao_broker.budget.used",
    kind: "gauge",
    unit: "{point}",
    attributes: ["resource"],
    description: "What has been spent in the current window (x-ratelimit-used).",
  },
  budgetReset: {
    name: "ao_broker.budget.reset",
    kind: "gauge",
    unit: "s",
    attributes: ["resource"],
    description: "When the current window ends, Unix epoch seconds (x-ratelimit-reset).",
  },
  queueDepth: {
    name: "ao_broker.queue.depth",
    kind: "gauge",
    unit: "{request}",
    attributes: ["priority"],
    description: "Requests waiting for budget or an upstream slot, by priority class.",
  },
  queueWait: {
    name: "ao_broker.queue.wait",
    kind: "histogram",
    unit: "s",
    attributes: ["priority"],
    description: "How long requests waited for budget or an upstream slot.",
    buckets: SECONDS_WAIT,
  },
  batchFlushes: {
    name: "ao_broker.batch.flushes",
    kind: "counter",
    unit: "{batch}",
    attributes: [],
    description: "Merged GraphQL queries sent upstream (each replaces batch.size separate queries).",
  },
  batchSize: {
    name: "ao_broker.batch.size",
    kind: "histogram",
    unit: "{request}",
    attributes: [],
    description: "Member queries per merged GraphQL query.",
    buckets: BATCH_SIZES,
  },
  lifecycleCycleDuration: {
    name: "ao_broker.lifecycle.cycle.duration",
    kind: "histogram",
    unit: "s",
    attributes: ["outcome"],
    description: "Duration of one lifecycle polling cycle over all watched PRs.",
    buckets: SECONDS_CYCLE,
  },
  lifecycleCycleCost: {
    name: "ao_broker.lifecycle.cycle.cost",
    kind: "histogram",
    unit: "{point}",
    attributes: ["resource"],
    description: "Cost of one lifecycle cycle per resource (GraphQL points, REST requests).",
    buckets: POINTS_CYCLE,
  },
  secondaryLimitPauses: {
    name: "ao_broker.secondary_limit.pauses",
    kind: "counter",
    unit: "{pause}",
    attributes: ["resource"],
    description: "Times upstream traffic was paused because GitHub signalled a secondary rate limit.",
  },
  invocations: {
    name: "ao_broker.invocations",
    kind: "counter",
    unit: "{invocation}",
    attributes: ["command", "outcome"],
    description: "gh invocations through the shim, by command and outcome (ok, error, abandoned).",
  },
  sessionsActive: {
    name: "ao_broker.sessions.active",
    kind: "gauge",
    unit: "{session}",
    attributes: [],
    description: "Open sessions.",
  },
} as const satisfies Record<string, MetricDefinition>;

export type MetricKey = keyof typeof METRIC_DEFINITIONS;

export interface RequestMeasurement {
  readonly sessionId?: string | undefined;
  /** AO-style operation (gh.pr.view); mapped to the bounded vocabulary. */
  readonly command?: string | undefined;
  readonly resource: string;
  /** HIT, REVALIDATED, MISS, COALESCED, BATCHED, STALE, STALE_REVALIDATING, BYPASS. */
  readonly cache: string;
  /** Charged to the caller. */
  readonly cost: number;
  readonly durationMs: number;
}

export interface UpstreamMeasurement {
  readonly resource: string;
  readonly method: string;
  /** HTTP status; 0 when no response arrived (network error, timeout). */
  readonly status: number;
  readonly durationMs: number;
  /** What GitHub charged (rateLimit.cost, 1 per REST call, 0 for a 304). */
  readonly cost?: number | undefined;
}

export interface UpstreamReadMeasurement {
  /** Why the read went upstream (broker/cache/core/serve-decision.ts UPSTREAM_REASONS). */
  readonly reason: string;
  readonly identical: boolean;
  readonly points: number;
  readonly resource: string;
}

export interface BudgetMeasurement {
  readonly resource: string;
  readonly limit: number;
  readonly remaining: number;
  readonly used: number;
  /** Unix epoch seconds. */
  readonly reset: number;
}

export interface LifecycleCycleMeasurement {
  readonly durationMs: number;
  readonly ok: boolean;
  /** Cost per resource, e.g. { graphql: 1, core: 3 }. */
  readonly cost: Readonly<Record<string, number>>;
}

export interface BrokerMetrics {
  recordRequest(measurement: RequestMeasurement): void;
  recordUpstream(measurement: UpstreamMeasurement): void;
  recordUpstreamRead(measurement: UpstreamReadMeasurement): void;
  setBudget(measurement: BudgetMeasurement): void;
  setQueueDepth(priority: string, depth: number): void;
  recordQueueWait(priority: string, waitMs: number): void;
  recordBatchFlush(size: number): void;
  recordLifecycleCycle(measurement: LifecycleCycleMeasurement): void;
  recordSecondaryLimitPause(resource: string): void;
  recordInvocation(command: string | undefined, outcome: "ok" | "error" | "abandoned"): void;
  setActiveSessions(count: number): void;
  /** The session label a session id maps to (for tests and for the status command). */
  sessionLabel(sessionId: string | undefined): string;
}

export interface BrokerMetricsOptions {
  /** Sessions that get their own label; later ones count as "other". @defaultValue 50 */
  readonly maxSessionLabels?: number;
  readonly secrets?: () => readonly string[];
}

const LABEL_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;
const PRIORITY_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
const METHOD_PATTERN = /^[A-Z]{3,7}$/;
const REASON_PATTERN = /^[a-z][a-z-]{0,15}$/;

function boundedLabel(value: string, pattern: RegExp): string {
  return pattern.test(value) ? value : "other";
}

function cacheLabel(value: string): string {
  return (CACHE_RESULT_VALUES as readonly string[]).includes(value) ? value : "other";
}

function statusLabel(status: number): string {
  return Number.isInteger(status) && status >= 0 && status < 600 ? String(status) : "other";
}

function createInstrument(meter: Meter, def: MetricDefinition): Counter | Gauge | Histogram {
  const options = { description: def.description, unit: def.unit };
  if (def.kind === "counter") return meter.createCounter(def.name, options);
  if (def.kind === "gauge") return meter.createGauge(def.name, options);
  return meter.createHistogram(def.name, {
    ...options,
    ...(def.buckets === undefined ? {} : { advice: { explicitBucketBoundaries: [...def.buckets] } }),
  });
}

export function createBrokerMetrics(meter: Meter, options: BrokerMetricsOptions = {}): BrokerMetrics {
  const d = METRIC_DEFINITIONS;
  const counter = (def: MetricDefinition) => createInstrument(meter, def) as Counter;
  const gauge = (def: MetricDefinition) => createInstrument(meter, def) as Gauge;
  const histogram = (def: MetricDefinition) => createInstrument(meter, def) as Histogram;
  const requests = counter(d.requests);
  const spend = counter(d.spendPoints);
  const requestDuration = histogram(d.requestDuration);
  const upstreamRequests = counter(d.upstreamRequests);
  const upstreamDuration = histogram(d.upstreamDuration);
  const upstreamCost = counter(d.upstreamCost);
  const upstreamReads = counter(d.upstreamReads);
  const upstreamReadPoints = counter(d.upstreamReadPoints);
  const budgetLimit = gauge(d.budgetLimit);
  const budgetRemaining = gauge(d.budgetRemaining);
  const budgetUsed = gauge(d.budgetUsed);
  const budgetReset = gauge(d.budgetReset);
  const queueDepth = gauge(d.queueDepth);
  const queueWait = histogram(d.queueWait);
  const batchFlushes = counter(d.batchFlushes);
  const batchSize = histogram(d.batchSize);
  const cycleDuration = histogram(d.lifecycleCycleDuration);
  const cycleCost = histogram(d.lifecycleCycleCost);
  const pauses = counter(d.secondaryLimitPauses);
  const invocations = counter(d.invocations);
  const sessionsActive = gauge(d.sessionsActive);
  const sessions = new SessionLabeler({
    ...(options.maxSessionLabels === undefined ? {} : { max: options.maxSessionLabels }),
    ...(options.secrets === undefined ? {} : { secrets: options.secrets }),
  });

  return {
    recordRequest(m) {
      const resource = boundedLabel(m.resource, LABEL_PATTERN);
      const session = sessions.label(m.sessionId);
      const cache = cacheLabel(m.cache);
      requests.add(1, { session, resource, cache_result: cache });
      if (m.cost > 0) spend.add(m.cost, { session, command: commandLabel(m.command), resource });
      requestDuration.record(m.durationMs / 1000, { resource, cache_result: cache });
    },
    recordUpstream(m) {
      const resource = boundedLabel(m.resource, LABEL_PATTERN);
      upstreamRequests.add(1, {
        resource,
        method: boundedLabel(m.method.toUpperCase(), METHOD_PATTERN),
        status_code: statusLabel(m.status),
      });
      upstreamDuration.record(m.durationMs / 1000, { resource });
      if (m.cost !== undefined && m.cost > 0) upstreamCost.add(m.cost, { resource });
    },
    recordUpstreamRead(m) {
      const attributes = {
        reason: boundedLabel(m.reason, REASON_PATTERN),
        identical: m.identical ? "true" : "false",
        resource: boundedLabel(m.resource, LABEL_PATTERN),
      };
      upstreamReads.add(1, attributes);
      if (m.points > 0) upstreamReadPoints.add(m.points, attributes);
    },
    setBudget(m) {
      const attributes = { resource: boundedLabel(m.resource, LABEL_PATTERN) };
      budgetLimit.record(m.limit, attributes);
      budgetRemaining.record(m.remaining, attributes);
      budgetUsed.record(m.used, attributes);
      budgetReset.record(m.reset, attributes);
    },
    setQueueDepth(priority, depth) {
      queueDepth.record(depth, { priority: boundedLabel(priority, PRIORITY_PATTERN) });
    },
    recordQueueWait(priority, waitMs) {
      queueWait.record(waitMs / 1000, { priority: boundedLabel(priority, PRIORITY_PATTERN) });
    },
    recordBatchFlush(size) {
      batchFlushes.add(1);
      batchSize.record(size);
    },
    recordLifecycleCycle(m) {
      cycleDuration.record(m.durationMs / 1000, { outcome: m.ok ? "ok" : "error" });
      for (const [resource, cost] of Object.entries(m.cost)) {
        cycleCost.record(cost, { resource: boundedLabel(resource, LABEL_PATTERN) });
      }
    },
    recordSecondaryLimitPause(resource) {
      pauses.add(1, { resource: boundedLabel(resource, LABEL_PATTERN) });
    },
    recordInvocation(command, outcome) {
      invocations.add(1, { command: commandLabel(command), outcome });
    },
    setActiveSessions(count) {
      sessionsActive.record(count);
    },
    sessionLabel(sessionId) {
      return sessions.label(sessionId);
    },
  };
}
