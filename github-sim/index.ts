/**
 * The GitHub simulator's public face. Start one with `startSimulator()`; see README.md for the
 * API and docs/simulator.md for the scenario format, the admin API and driving real gh.
 */
export type { EventResult } from "./core/apply-event.js";
export { DEFAULT_SCENARIO } from "./core/default-scenario.js";
// Read by the bench's truth tracker, so that "what was true" is derived exactly as answers are.
export { mergeStateStatus, reviewDecision } from "./core/derived-state.js";
export {
  type FaultAction,
  type FaultPlan,
  type FaultPlanInput,
  type FaultRule,
  type FaultRuleReport,
  parseFaultPlan,
} from "./core/fault-rules.js";
export { DEFAULT_EPOCH, GENERATED_PR_BASE } from "./core/load-scenario.js";
export type {
  CheckConclusion,
  CheckStatus,
  SimCheckRun,
  SimComment,
  SimCommit,
  SimIssue,
  SimPullRequest,
  SimRepo,
  SimReview,
  SimStatus,
  SimUser,
  SimWorkflowRun,
  WorldChange,
} from "./core/model.js";
export type { PrimaryResource } from "./core/primary-limits.js";
export { parseScenario, parseSimEvent, type Scenario, type SimEvent } from "./core/scenario-schema.js";
export { DEFAULT_SECONDARY_LIMITS, type SecondaryLimitsConfig } from "./core/secondary-limits.js";
export type { World, WorldListener } from "./core/world.js";
export { type SimErrorCode, SimErrors } from "./errors.js";
export type { FaultPlanInjector } from "./http/layers/fault-plan.js";
export type { FaultInjector } from "./http/layers/faults.js";
export type { SimHandler, SimRequest, SimResponse } from "./http/types.js";
export type { SimulatorOptions } from "./options.js";
export { readScenarioFile } from "./scenario-file.js";
export type { SimClock } from "./sim-state.js";
export { type RunningSimulator, startSimulator } from "./start-simulator.js";
export type { ResourceStats, SimStats } from "./stats.js";
export { type SimWebhookEvent, WEBHOOK_EVENTS, type WebhookDelivery } from "./webhooks/webhook-payloads.js";
export { signWebhook, type WebhookStats, type WebhookTarget } from "./webhooks/webhook-sender.js";
