/**
 * How a session's status follows from what is known, with AO's priority rules for an open PR:
 * CI failing → ci_failed; changes requested → changes_requested; (approved or no review required)
 * and mergeable → mergeable; approved → approved; review pending → review_pending; idle past the
 * stuck threshold → stuck; otherwise pr_open. Merged → merged; closed → idle.
 * Above the PR: terminal statuses stay, a merged PR wins, then an agent waiting for input.
 * Without a PR: `detecting` until the branch has been looked up once (or while a known PR number
 * has not been read yet), then `working` (or `stuck` when idle).
 */

import { type PREnrichmentData, toEnrichment } from "./pr-enrichment.js";
import type { PrFacts } from "./pr-facts.js";
import { isTerminalStatus, type SessionStatus } from "./session-status.js";

export interface StatusInputs {
  readonly status: SessionStatus;
  readonly prNumber: number | null;
  readonly pr: PrFacts | null;
  readonly detectionDone: boolean;
  readonly needsInput: boolean;
  readonly lastActivityAt: number | null;
}

export interface StatusOptions {
  /** Idle time after which an open PR (or a PR-less session) counts as stuck; 0 disables. */
  readonly stuckThresholdMs: number;
}

export function isIdle(inputs: StatusInputs, now: number, options: StatusOptions): boolean {
  return (
    options.stuckThresholdMs > 0 &&
    inputs.lastActivityAt !== null &&
    now - inputs.lastActivityAt >= options.stuckThresholdMs
  );
}

/** AO's priority order for an open PR. */
export function openPrStatus(enrichment: PREnrichmentData, idle: boolean): SessionStatus {
  if (enrichment.ciStatus === "failing") return "ci_failed";
  if (enrichment.reviewDecision === "changes_requested") return "changes_requested";
  const reviewOk = enrichment.reviewDecision === "approved" || enrichment.reviewDecision === "none";
  if (reviewOk && enrichment.mergeable) return "mergeable";
  if (enrichment.reviewDecision === "approved") return "approved";
  if (enrichment.reviewDecision === "pending") return "review_pending";
  if (idle) return "stuck";
  return "pr_open";
}

export function deriveStatus(inputs: StatusInputs, now: number, options: StatusOptions): SessionStatus {
  if (isTerminalStatus(inputs.status)) return inputs.status;
  const pr = inputs.pr;
  if (pr?.state === "MERGED") return "merged";
  if (inputs.needsInput) return "needs_input";
  const idle = isIdle(inputs, now, options);
  if (pr) {
    if (pr.state === "CLOSED") return "idle";
    return openPrStatus(toEnrichment(pr), idle);
  }
  if (inputs.prNumber !== null || !inputs.detectionDone) return "detecting";
  if (idle) return "stuck";
  return inputs.status === "spawning" ? "spawning" : "working";
}
