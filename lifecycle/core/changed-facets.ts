/**
 * Which facets of a PR an observed change moved, in the broker cache's vocabulary (core, state,
 * updated, head, checks, reviews, comments, threads, merge; docs/caching.md), so the broker drops
 * only the cached answers that read what moved. A moved updatedAt with nothing else the lifecycle
 * keeps having changed means something it does not keep moved (a body, a label, a comment): those
 * facets go too. Facts not known before: every facet.
 */
import type { PrFacts } from "./pr-facts.js";

export type ChangedFacet =
  | "core"
  | "state"
  | "updated"
  | "head"
  | "checks"
  | "reviews"
  | "comments"
  | "threads"
  | "merge";

export const ALL_FACETS: readonly ChangedFacet[] = [
  "core",
  "state",
  "updated",
  "head",
  "checks",
  "reviews",
  "comments",
  "threads",
  "merge",
];

/** What a PR guard's move means before GraphQL says more (guard-runner's reasons). */
export function facetsForGuardReason(reason: string): readonly ChangedFacet[] {
  if (reason === "check-runs" || reason === "commit-status" || reason === "actions") return ["checks"];
  if (reason === "review-comments") return ["threads", "updated"];
  if (reason === "pr-list") return ALL_FACETS.filter((f) => f !== "checks");
  return ALL_FACETS;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function changedFacets(before: PrFacts | null | undefined, after: PrFacts): ChangedFacet[] {
  if (!before) return [...ALL_FACETS];
  const out = new Set<ChangedFacet>();
  if (
    before.title !== after.title ||
    before.isDraft !== after.isDraft ||
    before.baseRefName !== after.baseRefName
  )
    out.add("core");
  if (before.state !== after.state) out.add("state");
  if (
    before.headSha !== after.headSha ||
    before.additions !== after.additions ||
    before.deletions !== after.deletions
  )
    out.add("head");
  if (
    before.rollupState !== after.rollupState ||
    before.checksTotal !== after.checksTotal ||
    !same(before.checks, after.checks)
  )
    out.add("checks");
  if (before.mergeable !== after.mergeable || before.mergeStateStatus !== after.mergeStateStatus)
    out.add("merge");
  if (before.reviewDecision !== after.reviewDecision || !same(before.reviews, after.reviews))
    out.add("reviews");
  if (!same(before.unresolvedThreadIds, after.unresolvedThreadIds)) out.add("threads");
  if (before.updatedAt !== after.updatedAt) {
    out.add("updated");
    if (out.size === 1) for (const f of ["core", "comments", "threads"] as const) out.add(f);
  }
  return [...out];
}

/** What a webhook event (`<event>.<action>` or `<event>`) says moved, before any re-read. */
export function facetsForWebhook(reason: string): readonly ChangedFacet[] {
  const event = reason.split(".")[0] ?? "";
  if (["check_run", "check_suite", "status", "workflow_run", "workflow_job"].includes(event))
    return ["checks"];
  if (event === "pull_request_review") return ["reviews", "threads", "comments", "updated"];
  if (event === "pull_request_review_comment" || event === "pull_request_review_thread")
    return ["threads", "updated"];
  if (event === "issue_comment") return ["comments", "updated"];
  if (event === "pull_request") return ALL_FACETS.filter((f) => f !== "checks");
  return ALL_FACETS;
}
