/**
 * Constructors for the conversation around issues and pull requests: comments, reviews, review
 * comments and their threads. Like builders.ts they record no change; actions do.
 */

import { buildUser } from "./builders.js";
import { makeNodeId } from "./ids.js";
import type {
  ReviewState,
  SimComment,
  SimIssue,
  SimPullRequest,
  SimRepo,
  SimReview,
  SimReviewComment,
} from "./model.js";
import type { World } from "./world.js";

export function buildComment(
  world: World,
  repo: SimRepo,
  target: SimIssue | SimPullRequest,
  input: { author: string; body: string; at: number },
): SimComment {
  buildUser(world, { login: input.author, at: input.at });
  const id = world.nextId("comment");
  const comment: SimComment = {
    id,
    nodeId: makeNodeId("IssueComment", `comment:${id}`),
    author: input.author,
    body: input.body,
    createdAt: input.at,
    updatedAt: input.at,
    version: 0,
  };
  target.comments.push(comment);
  world.registerNode(comment.nodeId, {
    type: "IssueComment",
    repo: repo.fullName,
    number: target.number,
    id,
  });
  return comment;
}

export interface ReviewInput {
  readonly author: string;
  readonly state: ReviewState;
  readonly body?: string | undefined;
  readonly comments?: readonly { path: string; line: number; body: string }[] | undefined;
  readonly at: number;
}

export function buildReview(world: World, repo: SimRepo, pr: SimPullRequest, input: ReviewInput): SimReview {
  buildUser(world, { login: input.author, at: input.at });
  const id = world.nextId("review");
  const review: SimReview = {
    id,
    nodeId: makeNodeId("PullRequestReview", `review:${id}`),
    author: input.author,
    state: input.state,
    body: input.body ?? "",
    commitSha: pr.headSha,
    submittedAt: input.at,
    version: 0,
  };
  pr.reviews.push(review);
  world.registerNode(review.nodeId, {
    type: "PullRequestReview",
    repo: repo.fullName,
    number: pr.number,
    id,
  });
  for (const c of input.comments ?? []) {
    buildReviewComment(world, pr, { ...c, author: input.author, reviewId: id, at: input.at });
  }
  pr.requestedReviewers = pr.requestedReviewers.filter((r) => r.toLowerCase() !== input.author.toLowerCase());
  return review;
}

export function buildReviewComment(
  world: World,
  pr: SimPullRequest,
  input: {
    author: string;
    body: string;
    path: string;
    line: number;
    reviewId?: number | null;
    inReplyTo?: number | undefined;
    at: number;
  },
): SimReviewComment {
  const id = world.nextId("reviewComment");
  const parent = input.inReplyTo ? pr.reviewComments.find((c) => c.id === input.inReplyTo) : undefined;
  let threadId = parent?.threadId;
  if (threadId === undefined) {
    threadId = world.nextId("thread");
    pr.reviewThreads.push({
      id: threadId,
      nodeId: makeNodeId("PullRequestReviewThread", `thread:${threadId}`),
      isResolved: false,
      isOutdated: false,
      path: input.path,
      line: input.line,
    });
  }
  const comment: SimReviewComment = {
    id,
    nodeId: makeNodeId("PullRequestReviewComment", `review-comment:${id}`),
    reviewId: input.reviewId ?? null,
    threadId,
    inReplyToId: parent?.id ?? null,
    author: input.author,
    body: input.body,
    path: input.path,
    line: input.line,
    side: "RIGHT",
    commitSha: pr.headSha,
    diffHunk: `@@ -${Math.max(1, input.line - 2)},3 +${Math.max(1, input.line - 2)},4 @@`,
    createdAt: input.at,
    updatedAt: input.at,
    version: 0,
  };
  pr.reviewComments.push(comment);
  return comment;
}
