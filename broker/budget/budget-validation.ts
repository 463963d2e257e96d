/**
 * Checks of what callers hand the budget gate, before anything reaches Redis: a bad value is an
 * AO_ERR_BUDGET_BAD_REQUEST naming it, never a corrupted key. Session ids may not contain "|",
 * the separator of reservation members.
 */
import { AoError } from "../../common/index.js";
import { BudgetErrors } from "./errors.js";

const RESOURCE_RE = /^[A-Za-z0-9_-]{1,64}$/;

export function budgetBadRequest(message: string): AoError {
  return new AoError(BudgetErrors.AO_ERR_BUDGET_BAD_REQUEST, `budget: ${message}`, { httpStatus: 500 });
}

export function validateSessionId(sessionId: string): void {
  if (
    typeof sessionId !== "string" ||
    sessionId.length === 0 ||
    sessionId.length > 256 ||
    sessionId.includes("|")
  ) {
    throw budgetBadRequest(`session id must be 1–256 characters without "|"`);
  }
}

export function validateResource(resource: string): void {
  if (typeof resource !== "string" || !RESOURCE_RE.test(resource)) {
    throw budgetBadRequest(`resource "${String(resource)}" is not a GitHub rate-limit resource name`);
  }
}

export function validateWeight(weight: number): void {
  if (!(Number.isFinite(weight) && weight > 0 && weight <= 1000)) {
    throw budgetBadRequest(`weight must be in (0, 1000], got ${weight}`);
  }
}

export function validateCost(cost: number, what = "cost"): void {
  if (!(Number.isFinite(cost) && cost >= 0))
    throw budgetBadRequest(`${what} must be a number ≥ 0, got ${cost}`);
}
