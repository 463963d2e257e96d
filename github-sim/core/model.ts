/**
 * The simulator's in-memory model of GitHub: plain records, no behaviour. The World (world.ts)
 * owns them and is the only writer; GraphQL resolvers and REST shapes only read them.
 *
 * Invariants: times are epoch milliseconds; every record that a client can observe carries a
 * `version` that the World bumps on each change (ETags and the change log derive from it); a
 * check run that belongs to a GitHub Actions job has `runId` set and its id IS the job id (as on
 * GitHub, where a job's id and its check run's id coincide).
 */

export type UserType = "User" | "Bot" | "Organization";

export interface SimUser {
  readonly id: number;
  readonly nodeId: string;
  readonly login: string;
  readonly name: string | null;
  readonly email: string | null;
  readonly type: UserType;
  readonly createdAt: number;
}

export interface SimLabel {
  readonly id: number;
  readonly nodeId: string;
  readonly name: string;
  readonly color: string;
  readonly description: string | null;
  readonly isDefault: boolean;
  readonly createdAt: number;
}

export interface SimMilestone {
  readonly id: number;
  readonly nodeId: string;
  readonly number: number;
  readonly title: string;
  readonly description: string | null;
  readonly dueOn: number | null;
  readonly state: "open" | "closed";
  readonly createdAt: number;
}

/** A conversation comment on an issue or a pull request (GitHub's IssueComment). */
export interface SimComment {
  readonly id: number;
  readonly nodeId: string;
  author: string;
  body: string;
  readonly createdAt: number;
  updatedAt: number;
  version: number;
}

export type ReviewState = "APPROVED" | "CHANGES_REQUESTED" | "COMMENTED" | "DISMISSED" | "PENDING";

export interface SimReview {
  readonly id: number;
  readonly nodeId: string;
  readonly author: string;
  state: ReviewState;
  body: string;
  readonly commitSha: string;
  readonly submittedAt: number;
  version: number;
}

/** A review comment on a diff line; comments sharing `threadId` form one review thread. */
export interface SimReviewComment {
  readonly id: number;
  readonly nodeId: string;
  readonly reviewId: number | null;
  readonly threadId: number;
  readonly inReplyToId: number | null;
  readonly author: string;
  body: string;
  readonly path: string;
  readonly line: number;
  readonly side: "LEFT" | "RIGHT";
  readonly commitSha: string;
  readonly diffHunk: string;
  readonly createdAt: number;
  updatedAt: number;
  version: number;
}

export interface SimReviewThread {
  readonly id: number;
  readonly nodeId: string;
  isResolved: boolean;
  isOutdated: boolean;
  readonly path: string;
  readonly line: number;
}

export interface SimFile {
  readonly path: string;
  readonly additions: number;
  readonly deletions: number;
  readonly status: "added" | "modified" | "removed" | "renamed";
}

export type PullState = "open" | "closed";
export type Mergeable = "MERGEABLE" | "CONFLICTING" | "UNKNOWN";

export interface SimPullRequest {
  readonly kind: "pr";
  readonly number: number;
  readonly id: number;
  readonly nodeId: string;
  title: string;
  body: string;
  state: PullState;
  merged: boolean;
  mergedAt: number | null;
  mergedBy: string | null;
  mergeCommitSha: string | null;
  closedAt: number | null;
  draft: boolean;
  readonly author: string;
  readonly headRef: string;
  headSha: string;
  baseRef: string;
  baseSha: string;
  labels: string[];
  assignees: string[];
  requestedReviewers: string[];
  reviews: SimReview[];
  comments: SimComment[];
  reviewComments: SimReviewComment[];
  reviewThreads: SimReviewThread[];
  /** Commit SHAs oldest first; the last one is the head. */
  commits: string[];
  files: SimFile[];
  mergeable: Mergeable;
  /** When set, overrides the computed mergeStateStatus (e.g. BEHIND). */
  mergeStateOverride: string | null;
  maintainerCanModify: boolean;
  milestone: number | null;
  locked: boolean;
  readonly createdAt: number;
  updatedAt: number;
  version: number;
}

export interface SimIssue {
  readonly kind: "issue";
  readonly number: number;
  readonly id: number;
  readonly nodeId: string;
  title: string;
  body: string;
  state: "open" | "closed";
  stateReason: "COMPLETED" | "NOT_PLANNED" | "REOPENED" | null;
  readonly author: string;
  labels: string[];
  assignees: string[];
  comments: SimComment[];
  milestone: number | null;
  locked: boolean;
  readonly createdAt: number;
  updatedAt: number;
  closedAt: number | null;
  version: number;
}

export type StatusState = "pending" | "success" | "failure" | "error";

export interface SimStatus {
  readonly id: number;
  readonly nodeId: string;
  readonly context: string;
  state: StatusState;
  description: string | null;
  targetUrl: string | null;
  readonly creator: string;
  readonly createdAt: number;
  updatedAt: number;
}

export interface SimCommit {
  readonly sha: string;
  readonly nodeId: string;
  readonly treeSha: string;
  readonly message: string;
  readonly author: string;
  readonly authorName: string;
  readonly authorEmail: string;
  readonly authoredAt: number;
  readonly committedAt: number;
  readonly parents: readonly string[];
  /** Commit statuses, newest last; the newest per context is the effective one. */
  statuses: SimStatus[];
  checkRunIds: number[];
  checkSuiteIds: number[];
  version: number;
}

export type CheckStatus = "queued" | "in_progress" | "completed";
export type CheckConclusion =
  | "success"
  | "failure"
  | "neutral"
  | "cancelled"
  | "skipped"
  | "timed_out"
  | "action_required"
  | "stale";

export interface SimStep {
  readonly number: number;
  readonly name: string;
  status: CheckStatus;
  conclusion: CheckConclusion | null;
  startedAt: number | null;
  completedAt: number | null;
  readonly log: string;
}

export interface SimAnnotation {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly level: "notice" | "warning" | "failure";
  readonly message: string;
  readonly title: string | null;
}

export interface SimCheckRun {
  readonly id: number;
  readonly nodeId: string;
  readonly name: string;
  readonly headSha: string;
  status: CheckStatus;
  conclusion: CheckConclusion | null;
  readonly createdAt: number;
  startedAt: number | null;
  completedAt: number | null;
  readonly suiteId: number;
  /** The workflow run this check run is a job of, or null for a plain check run. */
  readonly runId: number | null;
  readonly steps: SimStep[];
  readonly annotations: SimAnnotation[];
  readonly title: string | null;
  readonly summary: string | null;
  readonly detailsUrl: string | null;
  readonly appSlug: string;
  readonly isRequired: boolean;
  updatedAt: number;
  version: number;
}

export interface SimCheckSuite {
  readonly id: number;
  readonly nodeId: string;
  readonly headSha: string;
  readonly headBranch: string | null;
  readonly appSlug: string;
  readonly runId: number | null;
  readonly createdAt: number;
  updatedAt: number;
}

export interface SimWorkflow {
  readonly id: number;
  readonly nodeId: string;
  readonly name: string;
  readonly path: string;
  readonly createdAt: number;
}

export interface SimArtifact {
  readonly id: number;
  readonly nodeId: string;
  readonly name: string;
  readonly sizeInBytes: number;
  readonly createdAt: number;
}

export interface SimWorkflowRun {
  readonly id: number;
  readonly nodeId: string;
  readonly workflowId: number;
  readonly name: string;
  readonly displayTitle: string;
  readonly runNumber: number;
  readonly runAttempt: number;
  readonly event: string;
  status: CheckStatus;
  conclusion: CheckConclusion | null;
  readonly headBranch: string;
  readonly headSha: string;
  readonly suiteId: number;
  readonly jobIds: number[];
  readonly artifacts: SimArtifact[];
  readonly actor: string;
  readonly createdAt: number;
  runStartedAt: number;
  updatedAt: number;
  version: number;
}

export interface SimRepo {
  readonly id: number;
  readonly nodeId: string;
  readonly owner: string;
  readonly name: string;
  readonly fullName: string;
  description: string | null;
  readonly defaultBranch: string;
  readonly private: boolean;
  readonly createdAt: number;
  pushedAt: number;
  updatedAt: number;
  labels: SimLabel[];
  milestones: SimMilestone[];
  /** Branch name → head SHA. */
  branches: Map<string, string>;
  commits: Map<string, SimCommit>;
  pulls: Map<number, SimPullRequest>;
  issues: Map<number, SimIssue>;
  workflows: Map<number, SimWorkflow>;
  runs: Map<number, SimWorkflowRun>;
  checkRuns: Map<number, SimCheckRun>;
  checkSuites: Map<number, SimCheckSuite>;
  /** Next issue/PR number (they share one sequence, as on GitHub). */
  nextNumber: number;
  /** Pull requests must be approved before merging (drives reviewDecision REVIEW_REQUIRED). */
  readonly requireReviews: boolean;
  readonly mergeCommitAllowed: boolean;
  readonly squashMergeAllowed: boolean;
  readonly rebaseMergeAllowed: boolean;
}

/** One entry of the world's change log: what changed, when (scenario clock), at which version. */
export interface WorldChange {
  readonly at: number;
  readonly kind: string;
  readonly repo: string;
  readonly number?: number;
  readonly id?: number;
  /** Branch name (push, delete) or head SHA (status). */
  readonly ref?: string;
  readonly version: number;
}

/** What a global node id resolves to. */
export type NodeRef =
  | { readonly type: "Repository"; readonly repo: string }
  | { readonly type: "PullRequest"; readonly repo: string; readonly number: number }
  | { readonly type: "Issue"; readonly repo: string; readonly number: number }
  | { readonly type: "User" | "Bot" | "Organization"; readonly login: string }
  | { readonly type: "Label"; readonly repo: string; readonly name: string }
  | { readonly type: "CheckRun"; readonly repo: string; readonly id: number }
  | { readonly type: "Commit"; readonly repo: string; readonly sha: string }
  | { readonly type: "IssueComment"; readonly repo: string; readonly number: number; readonly id: number }
  | {
      readonly type: "PullRequestReview";
      readonly repo: string;
      readonly number: number;
      readonly id: number;
    };
