/**
 * Which facets of a PR an observed change moved, in the broker cache's vocabulary (core, state,
 * updated, head, checks, reviews, comments, threads, merge; docs/caching.md), so the broker drops
 * only the cached answers that read what moved. A moved updatedAt with nothing else the lifecycle
 * keeps having changed means something it does not keep moved (a body, a label, a comment): those
 * facets go too. The comment count (totalCommentsCount) is kept: a count that moved moves comments.
 * A new base moves the head (the diff, commits and files follow it). Facts not known before: every facet.
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
  // A new base is a new diff, commit list and file list (`gh pr diff` reads only the head facet).
  if (
    before.baseRefName !== after.baseRefName ||
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
  const count = commentCount(before, after);
  if (count === "changed") out.add("comments");
  if (before.updatedAt !== after.updatedAt) {
    // Nothing else the lifecycle keeps moved: what it does not keep may have (a body, a label, a
    // comment's edit, which leaves the count as it was: decision 0027). A changed count alone
    // explains no more than before (it may count review comments too): the same facets go.
    const unexplained = out.size === 0 || (out.size === 1 && count === "changed");
    out.add("updated");
    if (unexplained) for (const f of ["core", "comments", "threads"] as const) out.add(f);
  }
  return [...out];
}

/**
 * Whether the PR's comment count (totalCommentsCount) moved between two observations: "unknown"
 * when either side does not carry it (a webhook's facts, facts stored before it was asked).
 */
export function commentCount(before: PrFacts, after: PrFacts): "changed" | "unchanged" | "unknown" {
  if (before.totalCommentsCount === undefined || after.totalCommentsCount === undefined) return "unknown";
  return before.totalCommentsCount === after.totalCommentsCount ? "unchanged" : "changed";
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

/** Facets GitHub's `updatedAt` moves with that the lifecycle's enrichment does not (fully) read. */
const BEHIND_UPDATED_AT: readonly ChangedFacet[] = ["core", "reviews", "comments"];

export interface StillToMoveInput {
  /** The PR's facts when the cycle began (before any guard patched them); null: none known. */
  readonly before: PrFacts | null | undefined;
  /**
   * What the lifecycle's own enrichment fetched this cycle, after the signals (its request was sent
   * after the guards read); undefined: not fetched this cycle.
   */
  readonly fetched: PrFacts | undefined;
  /** The facets the signals of this cycle said moved (guard reasons, patched observations). */
  readonly signalled: readonly ChangedFacet[];
}

/**
 * Which facets of a PR still need the broker to drop (and refresh) its cached answers, once the
 * lifecycle's enrichment of this cycle has looked. A signal's facets are a guess made before
 * GitHub was asked (a check-runs ETag moved; the PR list saw updated_at move); the enrichment read
 * those facets after the signal, so:
 * - nothing fetched this cycle: every signalled facet (nothing better is known);
 * - no facts from before: every facet;
 * - otherwise what the enrichment saw move since the cycle began (changedFacets), plus the
 *   signalled facets it cannot judge: core, reviews, comments and threads when updatedAt moved
 *   (bodies, labels, comments, review comments, older reviews are not read), but comments not
 *   when the comment count is unchanged and no signal about comments named them, threads also when
 *   the signal was about review comments alone (their edits need not move updatedAt), and checks
 *   when either side's check list was cut at the page size.
 * A checks move the enrichment shows already happened (same checks, same rollup, same merge
 * state) moves nothing: the answers agents hold cannot differ from what a refresh would fetch.
 */
export function facetsStillToMove(input: StillToMoveInput): ChangedFacet[] {
  const { before, fetched, signalled } = input;
  if (!fetched) return [...new Set(signalled)];
  if (!before) return [...ALL_FACETS];
  const out = new Set<ChangedFacet>(changedFacets(before, fetched));
  const wanted = new Set(signalled);
  const updated = before.updatedAt !== fetched.updatedAt;
  // Comments: an unchanged count says no comment came or went, so a generic signal's guess (the
  // PR list's updated_at, a pull_request event: they name core too) is dropped; a signal about
  // comments themselves (issue_comment, a review: comments without core) stands, since an edit
  // leaves the count as it was. An updatedAt move nothing else explains keeps comments
  // (changedFacets). Decision 0027.
  const commentsSignalled = wanted.has("comments") && !wanted.has("core");
  const countSaysNone = commentCount(before, fetched) === "unchanged" && !commentsSignalled;
  if (updated)
    for (const f of BEHIND_UPDATED_AT) if (wanted.has(f) && !(f === "comments" && countSaysNone)) out.add(f);
  // Review comments are not read; a signal about them alone (the review-comments guard, a review
  // comment webhook: threads without core) stands, since their edits need not move updatedAt.
  if (wanted.has("threads") && (updated || !wanted.has("core"))) out.add("threads");
  const cut = (f: PrFacts) => f.checksTotal > f.checks.length;
  if (wanted.has("checks") && (cut(before) || cut(fetched))) out.add("checks");
  return ALL_FACETS.filter((f) => out.has(f));
}
