/**
 * What the lifecycle knows about one PR, normalised from whichever source told it (a GraphQL
 * snapshot, a webhook, a REST guard). Every field that can change carries enough to order
 * observations: the PR's `updatedAt` (GitHub's clock), the head SHA (checks belong to one head),
 * and per check its start/finish times. `observedAt` is the local time the snapshot's request was
 * sent, so of two snapshots of the same `updatedAt` the later-sent one wins.
 */

/** GitHub's PullRequestState. */
export type PrState = "OPEN" | "CLOSED" | "MERGED";

export interface CheckFact {
  /** A CheckRun, or a commit StatusContext. Checks are keyed by kind + name. */
  readonly kind: "check-run" | "status-context";
  readonly name: string;
  /** Upper case. CheckRun: QUEUED, IN_PROGRESS, COMPLETED, WAITING, PENDING, REQUESTED. StatusContext: its state. */
  readonly status: string;
  /** Upper case CheckConclusionState for check runs; the state (SUCCESS, FAILURE, ERROR) for finished contexts. */
  readonly conclusion: string | null;
  readonly url: string | null;
  /** Epoch ms. A status context's createdAt is used as both its start and (when final) finish. */
  readonly startedAt: number | null;
  readonly completedAt: number | null;
  /**
   * Local epoch ms at which a webhook reported this check; absent for checks read from a snapshot.
   * Lets a snapshot requested before the webhook arrived keep a check it could not have seen.
   */
  readonly seenAt?: number;
}

export interface ReviewFact {
  readonly author: string | null;
  /** PullRequestReviewState: APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING. */
  readonly state: string;
  readonly submittedAt: number | null;
}

export interface PrFacts {
  readonly repo: string;
  readonly number: number;
  readonly url: string | null;
  readonly title: string;
  readonly state: PrState;
  readonly isDraft: boolean;
  readonly additions: number;
  readonly deletions: number;
  /** MergeableState: MERGEABLE, CONFLICTING, UNKNOWN. */
  readonly mergeable: string;
  /** MergeStateStatus (BEHIND, BLOCKED, CLEAN, DIRTY, DRAFT, HAS_HOOKS, UNKNOWN, UNSTABLE) or null. */
  readonly mergeStateStatus: string | null;
  /** APPROVED, CHANGES_REQUESTED, REVIEW_REQUIRED, or null when no review is required. */
  readonly reviewDecision: string | null;
  readonly headRefName: string;
  readonly baseRefName: string | null;
  readonly headSha: string;
  /** GitHub's updatedAt, epoch ms. */
  readonly updatedAt: number;
  /** statusCheckRollup.state of the head commit (StatusState), or null when it has no checks. */
  readonly rollupState: string | null;
  readonly checks: readonly CheckFact[];
  /** contexts.totalCount: more checks than `checks` holds means the list was cut at the page size. */
  readonly checksTotal: number;
  /** Ids of the unresolved review threads among the last N threads. */
  readonly unresolvedThreadIds: readonly string[];
  readonly reviews: readonly ReviewFact[];
  /**
   * GitHub's totalCommentsCount (comments the PR received); absent when the source did not say
   * (a webhook, a REST guard, facts stored before the enrichment asked for it): not known.
   */
  readonly totalCommentsCount?: number;
  /**
   * Every check run among `checks` comes from GitHub Actions (the enrichment reads each one's app);
   * absent when the source did not say (a webhook, a REST guard, older stored facts).
   */
  readonly checksAllActions?: boolean;
  /** Local epoch ms at which the observation that last replaced these facts was requested. */
  readonly observedAt: number;
}

const FAILING_CONCLUSIONS = new Set([
  "FAILURE",
  "ERROR",
  "TIMED_OUT",
  "CANCELLED",
  "ACTION_REQUIRED",
  "STARTUP_FAILURE",
]);
const SKIPPED_CONCLUSIONS = new Set(["SKIPPED", "NEUTRAL", "STALE"]);

export type CheckOutcome = "pending" | "running" | "passed" | "failed" | "skipped";

/** AO's ciChecks status for one check. */
export function checkOutcome(check: CheckFact): CheckOutcome {
  if (check.kind === "status-context") {
    if (check.status === "SUCCESS") return "passed";
    if (FAILING_CONCLUSIONS.has(check.status)) return "failed";
    return "pending";
  }
  if (check.status === "IN_PROGRESS") return "running";
  if (check.status !== "COMPLETED") return "pending";
  const conclusion = check.conclusion ?? "";
  if (conclusion === "SUCCESS") return "passed";
  if (SKIPPED_CONCLUSIONS.has(conclusion)) return "skipped";
  if (FAILING_CONCLUSIONS.has(conclusion)) return "failed";
  return "passed";
}

/**
 * A rollup state recomputed from the checks we hold, used when a webhook changed one check after
 * GitHub's own rollup was read. When the list is incomplete only a failure or a still-running check
 * is conclusive; otherwise GitHub's last rollup stands.
 */
export function recomputeRollup(
  checks: readonly CheckFact[],
  previous: string | null,
  complete: boolean,
): string | null {
  if (checks.length === 0) return previous;
  const outcomes = checks.map(checkOutcome);
  if (outcomes.includes("failed")) return "FAILURE";
  if (outcomes.includes("pending") || outcomes.includes("running")) return "PENDING";
  return complete ? "SUCCESS" : previous;
}

const STATUS_RANK: Readonly<Record<string, number>> = {
  REQUESTED: 0,
  WAITING: 0,
  QUEUED: 0,
  PENDING: 0,
  EXPECTED: 0,
  IN_PROGRESS: 1,
};

/**
 * Orders two observations of the same check: a later start is a newer run (a re-run starts after
 * the old run finished); within one run, queued < in progress < completed, then the finish time.
 * Negative when a is older, zero when they are the same observation.
 */
export function compareCheckVersions(a: CheckFact, b: CheckFact): number {
  const start = (a.startedAt ?? 0) - (b.startedAt ?? 0);
  if (start !== 0) return start;
  const rank = (c: CheckFact) => STATUS_RANK[c.status] ?? 2;
  const byRank = rank(a) - rank(b);
  if (byRank !== 0) return byRank;
  return (a.completedAt ?? 0) - (b.completedAt ?? 0);
}

export function checkKey(check: Pick<CheckFact, "kind" | "name">): string {
  return `${check.kind}:${check.name}`;
}

/**
 * Everything that can matter to a consumer, without the local observation times: two facts with
 * the same fingerprint describe the same PR, so applying the second emits nothing.
 */
export function factsFingerprint(facts: PrFacts): string {
  const { observedAt: _ignored, checks, ...rest } = facts;
  const sortedChecks = [...checks]
    .map(({ seenAt: _seen, ...check }) => check)
    .sort((a, b) => checkKey(a).localeCompare(checkKey(b)));
  return JSON.stringify({ ...rest, checks: sortedChecks });
}
