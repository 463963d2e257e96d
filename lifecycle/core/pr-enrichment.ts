/**
 * AO's PREnrichmentData, the per-PR summary its lifecycle loop produces (keyed "owner/repo#number"),
 * built from PrFacts with AO's mapping rules so the orchestrator can use ao-broker's data as is:
 * rollup SUCCESS → passing; FAILURE, ERROR, TIMED_OUT, CANCELLED, ACTION_REQUIRED → failing;
 * PENDING, EXPECTED, QUEUED, IN_PROGRESS, WAITING → pending; no rollup → none.
 * mergeable = open ∧ (ci passing or none) ∧ (approved or none) ∧ no conflicts ∧ not behind ∧ not draft.
 */
import { type CheckOutcome, checkOutcome, type PrFacts } from "./pr-facts.js";

export type CiStatus = "pending" | "passing" | "failing" | "none";
export type ReviewDecision = "approved" | "changes_requested" | "pending" | "none";

export interface CiCheck {
  readonly name: string;
  readonly status: CheckOutcome;
  readonly url?: string;
  readonly conclusion?: string;
  readonly startedAt?: string;
  readonly completedAt?: string;
}

export interface PREnrichmentData {
  readonly state: "open" | "merged" | "closed";
  readonly ciStatus: CiStatus;
  readonly reviewDecision: ReviewDecision;
  readonly mergeable: boolean;
  readonly title?: string;
  readonly additions?: number;
  readonly deletions?: number;
  readonly isDraft?: boolean;
  readonly hasConflicts?: boolean;
  readonly isBehind?: boolean;
  readonly blockers?: readonly string[];
  readonly ciChecks?: readonly CiCheck[];
}

const FAILING = new Set(["FAILURE", "ERROR", "TIMED_OUT", "CANCELLED", "ACTION_REQUIRED", "STARTUP_FAILURE"]);
const PENDING = new Set(["PENDING", "EXPECTED", "QUEUED", "IN_PROGRESS", "WAITING", "REQUESTED"]);

export function mapCiState(state: string | null | undefined): CiStatus {
  if (state === null || state === undefined || state === "") return "none";
  const upper = state.toUpperCase();
  if (upper === "SUCCESS") return "passing";
  if (FAILING.has(upper)) return "failing";
  if (PENDING.has(upper)) return "pending";
  return "none";
}

export function mapReviewDecision(decision: string | null | undefined): ReviewDecision {
  switch (decision) {
    case "APPROVED":
      return "approved";
    case "CHANGES_REQUESTED":
      return "changes_requested";
    case "REVIEW_REQUIRED":
      return "pending";
    default:
      return "none";
  }
}

function iso(ms: number | null): string | undefined {
  return ms === null ? undefined : new Date(ms).toISOString();
}

export function toEnrichment(facts: PrFacts): PREnrichmentData {
  const state = facts.state === "MERGED" ? "merged" : facts.state === "CLOSED" ? "closed" : "open";
  const ciStatus = mapCiState(facts.rollupState);
  const reviewDecision = mapReviewDecision(facts.reviewDecision);
  const hasConflicts = facts.mergeable === "CONFLICTING";
  const isBehind = facts.mergeStateStatus === "BEHIND";
  const blockers: string[] = [];
  if (state === "open") {
    if (facts.isDraft) blockers.push("PR is a draft");
    if (ciStatus === "failing") blockers.push("CI is failing");
    if (ciStatus === "pending") blockers.push("CI is pending");
    if (reviewDecision === "changes_requested") blockers.push("Changes requested");
    if (reviewDecision === "pending") blockers.push("Review required");
    if (hasConflicts) blockers.push("Merge conflicts");
    if (isBehind) blockers.push("Branch is behind base");
    if (blockers.length === 0 && facts.mergeStateStatus === "BLOCKED")
      blockers.push("Blocked by branch protection");
  }
  const mergeable =
    state === "open" &&
    (ciStatus === "passing" || ciStatus === "none") &&
    (reviewDecision === "approved" || reviewDecision === "none") &&
    !hasConflicts &&
    !isBehind &&
    !facts.isDraft;
  return {
    state,
    ciStatus,
    reviewDecision,
    mergeable,
    title: facts.title,
    additions: facts.additions,
    deletions: facts.deletions,
    isDraft: facts.isDraft,
    hasConflicts,
    isBehind,
    blockers,
    ciChecks: facts.checks.map((check) => {
      const started = iso(check.startedAt);
      const completed = iso(check.completedAt);
      return {
        name: check.name,
        status: checkOutcome(check),
        ...(check.url ? { url: check.url } : {}),
        ...(check.conclusion ? { conclusion: check.conclusion } : {}),
        ...(started ? { startedAt: started } : {}),
        ...(completed ? { completedAt: completed } : {}),
      };
    }),
  };
}
