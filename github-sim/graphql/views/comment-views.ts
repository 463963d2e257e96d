/**
 * GraphQL views of the conversation: IssueComment, PullRequestReview, PullRequestReviewComment
 * and PullRequestReviewThread. Reactions are not modelled (empty groups), edits never happened
 * (includesCreatedEdit false), nothing is minimized.
 */
import type {
  SimComment,
  SimPullRequest,
  SimRepo,
  SimReview,
  SimReviewComment,
  SimReviewThread,
} from "../../core/model.js";
import type { PageArgs } from "../../core/paginate.js";
import { connection } from "../connection.js";
import { type GqlContext, isoTime } from "../context.js";
import { actorView, authorAssociation, type View } from "./actors.js";

function bodyFields(body: string) {
  return {
    body,
    bodyText: body,
    bodyHTML: `<p>${body.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")}</p>`,
  };
}

const NOT_EDITED = {
  includesCreatedEdit: false,
  lastEditedAt: null,
  isMinimized: false,
  minimizedReason: null,
  reactionGroups: [],
  viewerCanUpdate: true,
  viewerCanDelete: true,
  viewerCanReact: true,
  viewerCannotUpdateReasons: [],
};

export function issueCommentView(
  ctx: GqlContext,
  repo: SimRepo,
  number: number,
  isPull: boolean,
  comment: SimComment,
): View {
  const url = `${ctx.webBase}/${repo.fullName}/${isPull ? "pull" : "issues"}/${number}#issuecomment-${comment.id}`;
  return {
    __typename: "IssueComment",
    ...NOT_EDITED,
    id: comment.nodeId,
    databaseId: comment.id,
    fullDatabaseId: String(comment.id),
    author: actorView(ctx, comment.author),
    authorAssociation: authorAssociation(repo, comment.author),
    ...bodyFields(comment.body),
    createdAt: isoTime(comment.createdAt),
    updatedAt: isoTime(comment.updatedAt),
    publishedAt: isoTime(comment.createdAt),
    url,
    resourcePath: url.slice(ctx.webBase.length),
    viewerDidAuthor: comment.author.toLowerCase() === ctx.world.viewer.toLowerCase(),
  };
}

export function reviewView(ctx: GqlContext, repo: SimRepo, pr: SimPullRequest, review: SimReview): View {
  const url = `${ctx.webBase}/${repo.fullName}/pull/${pr.number}#pullrequestreview-${review.id}`;
  return {
    __typename: "PullRequestReview",
    ...NOT_EDITED,
    id: review.nodeId,
    databaseId: review.id,
    fullDatabaseId: String(review.id),
    author: actorView(ctx, review.author),
    authorAssociation: authorAssociation(repo, review.author),
    ...bodyFields(review.body),
    state: review.state,
    submittedAt: isoTime(review.submittedAt),
    createdAt: isoTime(review.submittedAt),
    updatedAt: isoTime(review.submittedAt),
    publishedAt: isoTime(review.submittedAt),
    commit: { __typename: "Commit", oid: review.commitSha, abbreviatedOid: review.commitSha.slice(0, 7) },
    url,
    resourcePath: url.slice(ctx.webBase.length),
    viewerDidAuthor: review.author.toLowerCase() === ctx.world.viewer.toLowerCase(),
    comments: (args: PageArgs) =>
      connection(
        pr.reviewComments.filter((c) => c.reviewId === review.id),
        args,
        (c) => reviewCommentView(ctx, repo, pr, c),
      ),
  };
}

export function reviewCommentView(
  ctx: GqlContext,
  repo: SimRepo,
  pr: SimPullRequest,
  comment: SimReviewComment,
): View {
  const url = `${ctx.webBase}/${repo.fullName}/pull/${pr.number}#discussion_r${comment.id}`;
  const review = comment.reviewId !== null ? pr.reviews.find((r) => r.id === comment.reviewId) : undefined;
  const replyTo =
    comment.inReplyToId !== null ? pr.reviewComments.find((c) => c.id === comment.inReplyToId) : undefined;
  return {
    __typename: "PullRequestReviewComment",
    ...NOT_EDITED,
    id: comment.nodeId,
    databaseId: comment.id,
    fullDatabaseId: String(comment.id),
    author: actorView(ctx, comment.author),
    authorAssociation: authorAssociation(repo, comment.author),
    ...bodyFields(comment.body),
    path: comment.path,
    line: comment.line,
    originalLine: comment.line,
    startLine: null,
    position: comment.line,
    originalPosition: comment.line,
    diffHunk: comment.diffHunk,
    outdated: false,
    state: "SUBMITTED",
    subjectType: "LINE",
    createdAt: isoTime(comment.createdAt),
    updatedAt: isoTime(comment.updatedAt),
    publishedAt: isoTime(comment.createdAt),
    url,
    resourcePath: url.slice(ctx.webBase.length),
    commit: { __typename: "Commit", oid: comment.commitSha, abbreviatedOid: comment.commitSha.slice(0, 7) },
    originalCommit: {
      __typename: "Commit",
      oid: comment.commitSha,
      abbreviatedOid: comment.commitSha.slice(0, 7),
    },
    pullRequestReview: review ? reviewView(ctx, repo, pr, review) : null,
    replyTo: replyTo ? reviewCommentView(ctx, repo, pr, replyTo) : null,
    viewerDidAuthor: comment.author.toLowerCase() === ctx.world.viewer.toLowerCase(),
  };
}

export function reviewThreadView(
  ctx: GqlContext,
  repo: SimRepo,
  pr: SimPullRequest,
  thread: SimReviewThread,
): View {
  const comments = pr.reviewComments.filter((c) => c.threadId === thread.id);
  return {
    __typename: "PullRequestReviewThread",
    id: thread.nodeId,
    isResolved: thread.isResolved,
    isOutdated: thread.isOutdated,
    isCollapsed: thread.isResolved,
    path: thread.path,
    line: thread.line,
    originalLine: thread.line,
    startLine: null,
    diffSide: "RIGHT",
    subjectType: "LINE",
    resolvedBy: null,
    viewerCanResolve: true,
    viewerCanUnresolve: true,
    viewerCanReply: true,
    comments: (args: PageArgs) => connection(comments, args, (c) => reviewCommentView(ctx, repo, pr, c)),
  };
}
