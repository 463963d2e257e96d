// The lifecycle's public face: PR polling for every watched session, the session state machine,
// events and webhooks. The broker composes it by implementing LifecyclePorts.

export {
  createDirectPorts,
  type DirectPortStats,
  type DirectPortsOptions,
} from "./adapters/direct-ports.js";
export {
  createRedisDeliveryDedupe,
  type RedisDeliveryDedupeOptions,
} from "./adapters/redis-delivery-dedupe.js";
export { createRedisWatchStore, type RedisWatchStoreOptions } from "./adapters/redis-watch-store.js";
export { type Clock, createManualClock, type ManualClock, systemClock, type TimerHandle } from "./clock.js";
export { DEFAULT_LIFECYCLE_CONFIG, type LifecycleConfig, resolveLifecycleConfig } from "./config.js";
export type { BudgetSnapshot, LifecycleBudget } from "./core/cadence.js";
export {
  type BranchTarget,
  type BuiltDetectionQuery,
  buildDetectionQuery,
} from "./core/detection-query.js";
export {
  type BuiltEnrichmentQuery,
  buildEnrichmentQuery,
  enrichmentPoints,
  type PrTarget,
} from "./core/enrichment-query.js";
export {
  type EventSource,
  LIFECYCLE_EVENT_TYPES,
  type LifecycleEvent,
  type LifecycleEventType,
} from "./core/lifecycle-event.js";
export type { PrObservation } from "./core/merge-observation.js";
export {
  type CiCheck,
  type CiStatus,
  type PREnrichmentData,
  type ReviewDecision,
  toEnrichment,
} from "./core/pr-enrichment.js";
export type { CheckFact, PrFacts } from "./core/pr-facts.js";
export type { AgentReport } from "./core/session-machine.js";
export {
  isTerminalStatus,
  SESSION_STATUSES,
  type SessionStatus,
  TERMINAL_STATUSES,
} from "./core/session-status.js";
export { HANDLED_WEBHOOK_EVENTS, type RefreshTarget } from "./core/webhook-signal.js";
export {
  createMemoryDeliveryDedupe,
  type DeliveryDedupe,
  type MemoryDeliveryDedupeOptions,
} from "./delivery-dedupe.js";
export { type LifecycleErrorCode, LifecycleErrors } from "./errors.js";
export { formatLifecycleStatus } from "./format-status.js";
export { type LifecycleInstrumentation, NO_INSTRUMENTATION } from "./instrumentation.js";
export type { LifecycleTotals } from "./lifecycle-context.js";
export {
  createLifecycleService,
  type LifecycleService,
  type LifecycleServiceOptions,
  type LifecycleStatus,
} from "./lifecycle-service.js";
export type { CycleReport } from "./poll-cycle.js";
export type {
  ActionsVouchTarget,
  GraphQLPortRequest,
  GraphQLPortResponse,
  InvalidateTarget,
  LifecyclePorts,
  MovedRunTarget,
  RefreshHoldPort,
  RestConditionalRequest,
  RestConditionalResponse,
  VouchTarget,
} from "./ports.js";
export { type SessionSummary, validateWatch, type WatchRequest } from "./session-summary.js";
export {
  createMemoryWatchStore,
  type StoredWatches,
  type WatchRecord,
  type WatchStore,
} from "./watch-store.js";
export {
  createWebhookHandler,
  type WebhookHandler,
  type WebhookHandlerOptions,
  type WebhookRequest,
  type WebhookResponse,
} from "./webhooks.js";
