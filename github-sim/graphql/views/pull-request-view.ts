/**
 * The GraphQL view of a pull request: every field gh 2.23 asks for (pr view/list/status/checks/
 * merge/create, --json fields) and what AO's lifecycle batch asks (reviewDecision, mergeable,
 * mergeStateStatus, headRefOid, the last commit's statusCheckRollup, reviewThreads).
 */
import { latestReviews, mergeStateStatus, reviewDecision, rollupState } from "../../core/derived-state.js";
import type { SimPullRequest, SimRepo } from "../../core/model.js";
import type { PageArgs } from "../../core/paginate.js";
import { connection, emptyConnection } from "../connection.js";
import { type GqlContext, isoTime } from "../context.js";
import { actorView, authorAssociation, labelsOf, labelView, usersOf, type View } from "./actors.js";
import { issueCommentView, reviewThreadView, reviewView } from "./comment-views.js";
import { commitView, rollupView } from "./commit-view.js";
import { refView, repositoryView } from "./repository-view.js";

export function pullState(pr: SimPullRequest): "OPEN" | "CLOSED" | "MERGED" {
  return pr.merged ? "MERGED" : pr.state === "open" ? "OPEN" : "CLOSED";
}

interface ReviewArgs extends PageArgs {
  readonly states?: readonly string[] | null;
  readonly author?: string | null;
}

export function pullRequestView(ctx: GqlContext, repo: SimRepo, pr: SimPullRequest): View {
  const url = `${ctx.webBase}/${repo.fullName}/pull/${pr.number}`;
  const headCommit = repo.commits.get(pr.headSha);
  const commits = pr.commits.map((sha) => repo.commits.get(sha)).filter((c) => c !== undefined);
  const additions = pr.files.reduce((n, f) => n + f.additions, 0);
  const deletions = pr.files.reduce((n, f) => n + f.deletions, 0);
  return {
    __typename: "PullRequest",
    id: pr.nodeId,
    databaseId: pr.id,
    fullDatabaseId: String(pr.id),
    number: pr.number,
    title: pr.title,
    titleHTML: pr.title,
    body: pr.body,
    bodyText: pr.body,
    bodyHTML: `<p>${pr.body}</p>`,
    url,
    permalink: url,
    resourcePath: `/${repo.fullName}/pull/${pr.number}`,
    state: pullState(pr),
    closed: pr.state === "closed",
    merged: pr.merged,
    isDraft: pr.draft,
    locked: pr.locked,
    activeLockReason: null,
    createdAt: isoTime(pr.createdAt),
    updatedAt: isoTime(pr.updatedAt),
    publishedAt: isoTime(pr.createdAt),
    lastEditedAt: null,
    closedAt: isoTime(pr.closedAt),
    mergedAt: isoTime(pr.mergedAt),
    mergedBy: actorView(ctx, pr.mergedBy),
    author: actorView(ctx, pr.author),
    authorAssociation: authorAssociation(repo, pr.author),
    editor: null,
    includesCreatedEdit: false,
    headRefName: pr.headRef,
    headRefOid: pr.headSha,
    baseRefName: pr.baseRef,
    baseRefOid: pr.baseSha,
    get headRef() {
      return refView(ctx, repo, pr.headRef);
    },
    get baseRef() {
      return refView(ctx, repo, pr.baseRef);
    },
    get headRepository() {
      return repositoryView(ctx, repo);
    },
    get headRepositoryOwner() {
      return repositoryView(ctx, repo).owner;
    },
    get baseRepository() {
      return repositoryView(ctx, repo);
    },
    get repository() {
      return repositoryView(ctx, repo);
    },
    isCrossRepository: false,
    maintainerCanModify: pr.maintainerCanModify,
    mergeable: pr.state === "open" ? pr.mergeable : "UNKNOWN",
    get mergeStateStatus() {
      return mergeStateStatus(repo, pr);
    },
    get reviewDecision() {
      return reviewDecision(repo, pr);
    },
    get mergeCommit() {
      const commit = pr.mergeCommitSha ? repo.commits.get(pr.mergeCommitSha) : undefined;
      return commit ? commitView(ctx, repo, commit) : null;
    },
    potentialMergeCommit: null,
    autoMergeRequest: null,
    isInMergeQueue: false,
    isMergeQueueEnabled: false,
    mergeQueueEntry: null,
    additions,
    deletions,
    changedFiles: pr.files.length,
    totalCommentsCount: pr.comments.length + pr.reviewComments.length,
    get statusCheckRollup() {
      return headCommit && rollupState(repo, headCommit) !== null ? rollupView(ctx, repo, headCommit) : null;
    },
    commits: (args: PageArgs) =>
      connection(commits, args, (c) => ({
        __typename: "PullRequestCommit",
        id: `PURC_${pr.nodeId}_${c.sha}`,
        url: `${url}/commits/${c.sha}`,
        resourcePath: `/${repo.fullName}/pull/${pr.number}/commits/${c.sha}`,
        commit: commitView(ctx, repo, c),
        get pullRequest() {
          return pullRequestView(ctx, repo, pr);
        },
      })),
    files: (args: PageArgs) =>
      connection(pr.files, args, (f) => ({
        __typename: "PullRequestChangedFile",
        path: f.path,
        additions: f.additions,
        deletions: f.deletions,
        changeType: f.status === "removed" ? "DELETED" : f.status.toUpperCase(),
        viewerViewedState: "UNVIEWED",
      })),
    labels: (args: PageArgs) => connection(labelsOf(repo, pr.labels), args, (l) => labelView(ctx, repo, l)),
    assignees: (args: PageArgs) => connection(usersOf(ctx, pr.assignees), args, (u) => u),
    participants: (args: PageArgs) =>
      connection(
        usersOf(ctx, [...new Set([pr.author, ...pr.comments.map((c) => c.author)])]),
        args,
        (u) => u,
      ),
    reviewRequests: (args: PageArgs) =>
      connection(usersOf(ctx, pr.requestedReviewers), args, (u) => ({
        __typename: "ReviewRequest",
        id: `RR_${pr.nodeId}_${String(u.login)}`,
        asCodeOwner: false,
        requestedReviewer: u,
      })),
    reviews: (args: ReviewArgs) => {
      const states = args.states ? new Set(args.states) : undefined;
      const author = args.author?.toLowerCase();
      const reviews = pr.reviews.filter(
        (r) => (!states || states.has(r.state)) && (!author || r.author.toLowerCase() === author),
      );
      return connection(reviews, args, (r) => reviewView(ctx, repo, pr, r));
    },
    latestReviews: (args: PageArgs) =>
      connection(latestReviews(pr), args, (r) => reviewView(ctx, repo, pr, r)),
    latestOpinionatedReviews: (args: PageArgs) =>
      connection(
        latestReviews(pr).filter((r) => r.state !== "COMMENTED"),
        args,
        (r) => reviewView(ctx, repo, pr, r),
      ),
    comments: (args: PageArgs) =>
      connection(pr.comments, args, (c) => issueCommentView(ctx, repo, pr.number, true, c)),
    reviewThreads: (args: PageArgs) =>
      connection(pr.reviewThreads, args, (t) => reviewThreadView(ctx, repo, pr, t)),
    milestone: null,
    projectCards: () => emptyConnection(),
    projectItems: () => emptyConnection(),
    projectsV2: () => emptyConnection(),
    timelineItems: () => emptyConnection(),
    closingIssuesReferences: () => emptyConnection(),
    reactions: () => emptyConnection(),
    reactionGroups: [],
    viewerDidAuthor: pr.author.toLowerCase() === ctx.world.viewer.toLowerCase(),
    viewerCanUpdate: true,
    viewerCanReact: true,
    viewerSubscription: "SUBSCRIBED",
    viewerLatestReview: null,
    viewerLatestReviewRequest: null,
    viewerMergeHeadlineText: "",
    viewerMergeBodyText: "",
  };
}
