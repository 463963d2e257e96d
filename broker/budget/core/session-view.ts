/**
 * A session's own view of the budget, in GitHub's x-ratelimit-* terms, for the headers the
 * gateway puts on every answer: its fair share is its `limit`, its spend this window is `used`,
 * and `remaining` is what it could still spend now (never more than the global bucket allows).
 * A client such as octokit's throttling plugin then backs off on its own, as it would with GitHub.
 */
import type { SessionUsage } from "./admission.js";
import type { BudgetWindow } from "./window.js";

export interface SessionBudgetView {
  readonly resource: string;
  readonly limit: number;
  readonly remaining: number;
  readonly used: number;
  /** Epoch seconds, like x-ratelimit-reset. */
  readonly reset: number;
  /** GitHub's limit for the whole window (the gateway's x-ratelimit-limit; docs/decisions/0010). */
  readonly windowLimit?: number;
}

export interface SessionViewInput {
  readonly resource: string;
  readonly window: BudgetWindow;
  readonly reserved: number;
  /** Active sessions (the viewer may or may not be among them). */
  readonly active: readonly SessionUsage[];
  readonly sessionId: string;
  /** Weight used when the session is not active. */
  readonly weight: number;
  /** Spend of the session this window when it is not active. */
  readonly usedIfInactive: number;
  /** reserveFraction of the class the view is computed for. */
  readonly reserveFraction: number;
}

export function computeSessionView(input: SessionViewInput): SessionBudgetView {
  const { window } = input;
  const available = Math.max(
    0,
    window.remaining - input.reserved - Math.floor(window.limit * input.reserveFraction),
  );
  const self = input.active.find((s) => s.id === input.sessionId);
  const used = self?.used ?? input.usedIfInactive;
  const weight = self?.weight ?? input.weight;
  let weights = self ? 0 : weight;
  let usedAll = self ? 0 : used;
  for (const s of input.active) {
    weights += s.weight;
    usedAll += s.used;
  }
  const share = weights > 0 ? ((available + usedAll) * weight) / weights : 0;
  return {
    resource: input.resource,
    limit: Math.floor(share),
    used: Math.round(used),
    remaining: Math.max(0, Math.min(Math.floor(share - used), available)),
    reset: Math.ceil(window.resetAt / 1000),
    windowLimit: window.limit,
  };
}
