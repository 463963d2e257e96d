/** Error codes of the budget gate (broker/budget/). Listed in docs/errors.md. */
export const BudgetErrors = {
  /**
   * The caller's deadline passed while it waited for budget. The gateway answers in GitHub's own
   * rate-limit shape (REST 403, GraphQL RATE_LIMITED); `data` has resource, limit, reset, retryAt.
   */
  AO_ERR_BUDGET_EXHAUSTED: "AO_ERR_BUDGET_EXHAUSTED",
  /** An admission request was malformed (session id, weight, cost or resource). */
  AO_ERR_BUDGET_BAD_REQUEST: "AO_ERR_BUDGET_BAD_REQUEST",
  /** The gate was closed (broker shutting down) or not started while a caller needed it. */
  AO_ERR_BUDGET_CLOSED: "AO_ERR_BUDGET_CLOSED",
  /** A budget Lua script reported a failure (a bug or a corrupted key; `data.script` names it). */
  AO_ERR_BUDGET_SCRIPT_FAILED: "AO_ERR_BUDGET_SCRIPT_FAILED",
  /** The caller gave up (its AbortSignal fired) while waiting for budget. */
  AO_ERR_BUDGET_ABORTED: "AO_ERR_BUDGET_ABORTED",
} as const;
export type BudgetErrorCode = keyof typeof BudgetErrors;
