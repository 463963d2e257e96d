/**
 * agents-shim/: the `gh` that agents find first on PATH, its installer, and the Node helper the
 * installed shell script calls on its slow paths. README.md has the options table and the
 * environment variables the shim reads; docs/integrations/agent-orchestrator.md the AO set-up.
 */

export { type AoProcess, findAoProcesses, looksLikeAo } from "./ao-processes.js";
export { type AuthStatusOptions, authStatus } from "./auth-status.js";
export { type BudgetWaitNoticeOptions, budgetWaitNotice } from "./budget-wait-notice.js";
export { type BudgetNotice, budgetNotice, type NoticeBudget } from "./core/budget-notice.js";
export { formatCacheRecord, parseCacheRecord, type SessionCacheRecord } from "./core/cache-record.js";
export { DEFAULT_FALLBACK, type FallbackPolicy, parseFallback } from "./core/fallback-policy.js";
export { normalizeRepo, repoFromRemotes, worktreeSessionId } from "./core/session-identity.js";
export { classifyGhFile, type ExistingGh } from "./core/shim-file.js";
export { type DescribeShimOptions, describeShim, type ShimDescription } from "./describe-shim.js";
export { type ShimErrorCode, ShimErrors } from "./errors.js";
export { type FlushSpoolOptions, flushSpool } from "./flush-spool.js";
export {
  AO_WRAPPER_NAME,
  defaultShimDir,
  type InstallAction,
  type InstallReport,
  type InstallShimOptions,
  installShim,
  type UninstallReport,
  uninstallShim,
} from "./install-shim.js";
export {
  DEFAULT_ORCHESTRATOR_SESSION,
  type OpenOrchestratorOptions,
  openOrchestrator,
  orchestratorEnv,
  type RunBrokeredOptions,
  runBrokered,
} from "./orchestrator-run.js";
export { AO_GIT_WRAPPER_MARKER, GIT_HELPER_MAX_DEPTH, resolveRealGit } from "./real-git.js";
export { type RegisterSessionOptions, registerSession } from "./register-session.js";
export { runHelper } from "./run-helper.js";
export { locateShimAssets, type ShimAssets } from "./shim-assets.js";
export { guardShim, type ShimGuard, type ShimGuardOptions } from "./shim-guard.js";
export { type InspectShimHealthOptions, inspectShimHealth, type ShimHealth } from "./shim-health.js";
export { VERSION } from "./version.js";
