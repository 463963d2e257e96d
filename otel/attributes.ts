/**
 * Attribute and span names, in one place (BullMQ keeps its own in enums/telemetry-attributes.ts for
 * the same reason: a renamed attribute silently breaks every saved Jaeger query and dashboard).
 * Upstream names come from @opentelemetry/semantic-conventions where they are stable; the
 * incubating ones (graphql.*, process.*) are copied as literals, as the semconv package advises,
 * so a semconv upgrade cannot rename them under us. Our own live under `ao.`; GitHub facts under
 * `github.`. docs/observability.md lists them all.
 */
import {
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
  ATTR_URL_PATH,
} from "@opentelemetry/semantic-conventions";

export const AoAttributes = {
  SESSION_ID: "ao.session.id",
  PROJECT_ID: "ao.project.id",
  ISSUE_ID: "ao.issue.id",
  INVOCATION_ID: "ao.invocation.id",
  /** AO-style operation: gh.pr.checks, gh.api.graphql, ao.lifecycle. */
  COMMAND: "ao.command",
  /** The redacted gh argv, as a string array. */
  ARGV: "ao.invocation.argv",
  /** Why an invocation span was ended by the broker rather than by the shim's exit report. */
  END_REASON: "ao.invocation.end_reason",
  REQUEST_ID: "ao.request.id",
  COST_CHARGED: "ao.cost.charged",
  CACHE_RESULT: "ao.cache.result",
  COALESCED: "ao.coalesced",
  BATCHED: "ao.batched",
  BATCH_SIZE: "ao.batch.size",
  QUEUE_WAIT_MS: "ao.queue.wait_ms",
  PRIORITY: "ao.priority",
  READ_ONLY: "ao.read_only",
  LIFECYCLE_SESSIONS: "ao.lifecycle.sessions",
  LIFECYCLE_PRS: "ao.lifecycle.prs",
  LIFECYCLE_STEP: "ao.lifecycle.step",
  LIFECYCLE_CHANGED: "ao.lifecycle.changed",
} as const;

export const GitHubAttributes = {
  /** Rate-limit bucket: core, graphql, search, code_search. */
  RESOURCE: "github.resource",
  /** Points GitHub charged for an upstream GraphQL call (rateLimit.cost). */
  GRAPHQL_COST: "github.graphql.cost",
  RATELIMIT_REMAINING: "github.ratelimit.remaining",
  RATELIMIT_LIMIT: "github.ratelimit.limit",
  RATELIMIT_RESET: "github.ratelimit.reset",
  /** Seconds GitHub asked us to wait (retry-after) after a secondary limit. */
  RETRY_AFTER_S: "github.retry_after_s",
} as const;

export const SemconvAttributes = {
  HTTP_REQUEST_METHOD: ATTR_HTTP_REQUEST_METHOD,
  HTTP_RESPONSE_STATUS_CODE: ATTR_HTTP_RESPONSE_STATUS_CODE,
  HTTP_ROUTE: ATTR_HTTP_ROUTE,
  URL_FULL: ATTR_URL_FULL,
  URL_PATH: ATTR_URL_PATH,
  SERVER_ADDRESS: ATTR_SERVER_ADDRESS,
  SERVER_PORT: ATTR_SERVER_PORT,
  ERROR_TYPE: ATTR_ERROR_TYPE,
  DB_SYSTEM_NAME: ATTR_DB_SYSTEM_NAME,
  DB_OPERATION_NAME: ATTR_DB_OPERATION_NAME,
  DB_QUERY_TEXT: ATTR_DB_QUERY_TEXT,
  GRAPHQL_OPERATION_NAME: "graphql.operation.name",
  GRAPHQL_OPERATION_TYPE: "graphql.operation.type",
  PROCESS_EXIT_CODE: "process.exit.code",
  PROCESS_WORKING_DIRECTORY: "process.working_directory",
} as const;

/** Fixed span names (request and invocation span names are built from route templates and commands). */
export const SpanNames = {
  BATCH_FLUSH: "ao.batch.flush",
  LIFECYCLE_CYCLE: "ao.lifecycle.cycle",
  LIFECYCLE_GUARD: "ao.lifecycle.guard",
  LIFECYCLE_BATCH: "ao.lifecycle.batch",
} as const;

/** How an answer was served; mirrors the gateway's x-ao-broker-cache values. */
export const CACHE_RESULT_VALUES = [
  "HIT",
  "REVALIDATED",
  "MISS",
  "COALESCED",
  "BATCHED",
  "STALE",
  "STALE_REVALIDATING",
  "BYPASS",
] as const;
