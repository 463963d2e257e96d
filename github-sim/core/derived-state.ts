/**
 * States GitHub derives rather than stores: the effective status per context, the check runs
 * that count for a commit, the CI roll-up, review decision, latest reviews and merge state.
 * Both the GraphQL resolvers and the REST shapes use these, so the two APIs always agree.
 */
import type { SimCheckRun, SimCommit, SimPullRequest, SimRepo, SimReview, SimStatus } from "./model.js";

export type RollupState = "SUCCESS" | "FAILURE" | "PENDING" | "ERROR" | "EXPECTED";

/** The newest status per context, ordered by context creation (as GitHub lists them). */
export function effectiveStatuses(commit: SimCommit | undefined): SimStatus[] {
  if (!commit) return [];
  const byContext = new Map<string, SimStatus>();
  for (const status of commit.statuses) byContext.set(status.context, status);
  return [...byContext.values()];
}

/** Check runs on a commit, the newest per name (a re-run replaces the older run). */
export function latestCheckRuns(repo: SimRepo, commit: SimCommit | undefined): SimCheckRun[] {
  if (!commit) return [];
  const byName = new Map<string, SimCheckRun>();
  for (const id of commit.checkRunIds) {
    const run = repo.checkRuns.get(id);
    if (run) byName.set(`${run.appSlug}/${run.name}`, run);
  }
  return [...byName.values()];
}

export function checkRunState(run: SimCheckRun): RollupState {
  if (run.status !== "completed") return "PENDING";
  switch (run.conclusion) {
    case "success":
    case "neutral":
    case "skipped":
      return "SUCCESS";
    case "stale":
      return "PENDING";
    default:
      return "FAILURE";
  }
}

export function statusState(status: SimStatus): RollupState {
  return status.state === "success"
    ? "SUCCESS"
    : status.state === "pending"
      ? "PENDING"
      : status.state === "error"
        ? "ERROR"
        : "FAILURE";
}

/** GitHub's roll-up of every check run and status on a commit; null when there is none. */
export function rollupState(repo: SimRepo, commit: SimCommit | undefined): RollupState | null {
  const states = [
    ...latestCheckRuns(repo, commit).map(checkRunState),
    ...effectiveStatuses(commit).map(statusState),
  ];
  if (states.length === 0) return null;
  if (states.includes("FAILURE")) return "FAILURE";
  if (states.includes("ERROR")) return "ERROR";
  if (states.includes("PENDING")) return "PENDING";
  return "SUCCESS";
}

/** REST's combined status (statuses only): failure, pending or success. */
export function combinedStatus(commit: SimCommit | undefined): "failure" | "pending" | "success" {
  const statuses = effectiveStatuses(commit);
  if (statuses.some((s) => s.state === "failure" || s.state === "error")) return "failure";
  if (statuses.length === 0 || statuses.some((s) => s.state === "pending")) return "pending";
  return "success";
}

/** The latest APPROVED / CHANGES_REQUESTED / COMMENTED review of each reviewer. */
export function latestReviews(pr: SimPullRequest): SimReview[] {
  const byAuthor = new Map<string, SimReview>();
  for (const review of pr.reviews) {
    if (review.state === "PENDING") continue;
    const previous = byAuthor.get(review.author);
    // A later comment-only review does not replace an approval or a change request.
    if (previous && review.state === "COMMENTED" && previous.state !== "COMMENTED") continue;
    byAuthor.set(review.author, review);
  }
  return [...byAuthor.values()];
}

export type ReviewDecision = "APPROVED" | "CHANGES_REQUESTED" | "REVIEW_REQUIRED";

export function reviewDecision(repo: SimRepo, pr: SimPullRequest): ReviewDecision | null {
  const latest = latestReviews(pr);
  if (latest.some((r) => r.state === "CHANGES_REQUESTED")) return "CHANGES_REQUESTED";
  if (latest.some((r) => r.state === "APPROVED")) return "APPROVED";
  return repo.requireReviews ? "REVIEW_REQUIRED" : null;
}

export function mergeStateStatus(repo: SimRepo, pr: SimPullRequest): string {
  if (pr.mergeStateOverride) return pr.mergeStateOverride;
  if (pr.state !== "open") return "UNKNOWN";
  if (pr.draft) return "DRAFT";
  if (pr.mergeable === "CONFLICTING") return "DIRTY";
  if (pr.mergeable === "UNKNOWN") return "UNKNOWN";
  const decision = reviewDecision(repo, pr);
  if (decision === "CHANGES_REQUESTED" || decision === "REVIEW_REQUIRED") return "BLOCKED";
  const rollup = rollupState(repo, repo.commits.get(pr.headSha));
  if (rollup === "FAILURE" || rollup === "ERROR") return "UNSTABLE";
  if (rollup === "PENDING") return "BLOCKED";
  return "CLEAN";
}

/** REST's `mergeable_state` (lower-case twin of mergeStateStatus). */
export function restMergeableState(repo: SimRepo, pr: SimPullRequest): string {
  return mergeStateStatus(repo, pr).toLowerCase();
}

/** The author's relation to the repository: its owner, or (for everyone else here) a member. */
export function authorAssociation(repo: SimRepo, login: string): "OWNER" | "MEMBER" {
  return login.toLowerCase() === repo.owner.toLowerCase() ? "OWNER" : "MEMBER";
}
