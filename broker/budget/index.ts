export { type BudgetClock, realSleep } from "./budget-clock.js";
export {
  type Admission,
  type AdmitDecision,
  type AdmitRequest,
  BudgetGate,
  type BudgetGateOptions,
  type BudgetRefusal,
  type SettleOutcome,
} from "./budget-gate.js";
export {
  type BudgetPolicy,
  type BudgetPolicyInput,
  DEFAULT_BUDGET_POLICY,
  resolveBudgetPolicy,
} from "./budget-policy.js";
export type { ActiveSession, ResourceState } from "./budget-state.js";
export type { BudgetWait, GlobalBudgetView, SessionSpend } from "./budget-views.js";
export {
  type AdmissionDecision,
  type AdmissionInput,
  type AdmissionReason,
  type ClaimPolicy,
  claimFloorFor,
  claimOf,
  decideAdmission,
  type SessionUsage,
} from "./core/admission.js";
export {
  maxMinAllocation,
  type WeightedDemand,
  type WeightedSession,
  weightedShares,
} from "./core/fair-share.js";
export { projectSpend, type SpendProjection } from "./core/projection.js";
export { isFairShareExempt, type ReserveFractions, reserveFloor, reserveFraction } from "./core/reserve.js";
export { computeSessionView, type SessionBudgetView } from "./core/session-view.js";
export { type BudgetWindow, mergeObservation, type Observation, rollIfDue } from "./core/window.js";
export { type BudgetErrorCode, BudgetErrors } from "./errors.js";
