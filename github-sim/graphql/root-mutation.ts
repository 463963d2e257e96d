/**
 * The Mutation root: the mutations gh sends (createPullRequest, mergePullRequest, addComment,
 * addPullRequestReview, addLabelsToLabelable, createIssue, ready/draft, close/reopen, update,
 * requestReviews, review-thread resolution). Each applies the same World action the scenario
 * engine uses, so a mutation and an injected event change the world identically; refusals
 * surface as GraphQL errors with GitHub's `type` (UNPROCESSABLE, NOT_FOUND...).
 */
import { addIssueComment, changeLabels, openIssue, setIssueState } from "../core/actions-issues.js";
import {
  type MergeMethod,
  mergePullRequest,
  openPullRequest,
  resolveThread,
  setDraft,
  setPullState,
  submitReview,
} from "../core/actions-pulls.js";
import type { ReviewState, SimRepo } from "../core/model.js";
import { encodeCursor } from "../core/paginate.js";
import { WorldError } from "../core/world-error.js";
import type { GqlContext } from "./context.js";
import { issueCommentView, reviewThreadView, reviewView } from "./views/comment-views.js";
import { issueView } from "./views/issue-view.js";
import { notFoundNode, pullForNode, repoForNode, subjectForNode } from "./views/node-view.js";
import { pullRequestView } from "./views/pull-request-view.js";

type Input<T> = { readonly input: T & { readonly clientMutationId?: string | null } };

const REVIEW_EVENTS: Record<string, ReviewState> = {
  APPROVE: "APPROVED",
  REQUEST_CHANGES: "CHANGES_REQUESTED",
  COMMENT: "COMMENTED",
};

function labelNames(ctx: GqlContext, repo: SimRepo, ids: readonly string[]): string[] {
  return ids.map((id) => {
    const ref = ctx.world.resolveNode(id);
    if (ref?.type !== "Label" || ref.repo !== repo.fullName) throw notFoundNode(id);
    return ref.name;
  });
}

function loginsOf(ctx: GqlContext, ids: readonly string[] | null | undefined): string[] {
  return (ids ?? []).map((id) => {
    const ref = ctx.world.resolveNode(id);
    if (ref?.type !== "User" && ref?.type !== "Bot") throw notFoundNode(id);
    return ref.login;
  });
}

export function mutationRoot(ctx: GqlContext): Record<string, unknown> {
  const { world } = ctx;
  const subjectView = (repo: SimRepo, number: number) => {
    const item = world.issueOrPull(repo, number);
    if (!item) return null;
    return item.kind === "pr" ? pullRequestView(ctx, repo, item) : issueView(ctx, repo, item);
  };
  return {
    createPullRequest: ({
      input,
    }: Input<{
      repositoryId: string;
      baseRefName: string;
      headRefName: string;
      title: string;
      body?: string | null;
      draft?: boolean | null;
      maintainerCanModify?: boolean | null;
    }>) => {
      const repo = repoForNode(ctx, input.repositoryId);
      const head = input.headRefName.includes(":")
        ? (input.headRefName.split(":")[1] ?? "")
        : input.headRefName;
      const pr = openPullRequest(world, repo, {
        title: input.title,
        body: input.body ?? "",
        author: world.viewer,
        head,
        base: input.baseRefName,
        draft: input.draft ?? false,
      });
      return {
        clientMutationId: input.clientMutationId ?? null,
        pullRequest: pullRequestView(ctx, repo, pr),
      };
    },
    mergePullRequest: ({
      input,
    }: Input<{
      pullRequestId: string;
      mergeMethod?: MergeMethod | null;
      expectedHeadOid?: string | null;
    }>) => {
      const { repo, pr } = pullForNode(ctx, input.pullRequestId);
      mergePullRequest(world, repo, pr.number, {
        method: input.mergeMethod ?? "MERGE",
        by: world.viewer,
        expectedHeadOid: input.expectedHeadOid ?? undefined,
      });
      return {
        clientMutationId: input.clientMutationId ?? null,
        pullRequest: pullRequestView(ctx, repo, pr),
        actor: null,
      };
    },
    addComment: ({ input }: Input<{ subjectId: string; body: string }>) => {
      const { repo, item } = subjectForNode(ctx, input.subjectId);
      const comment = addIssueComment(world, repo, item.number, { author: world.viewer, body: input.body });
      const node = issueCommentView(ctx, repo, item.number, item.kind === "pr", comment);
      return {
        clientMutationId: input.clientMutationId ?? null,
        commentEdge: { cursor: encodeCursor(item.comments.length - 1), node },
        timelineEdge: { cursor: encodeCursor(0), node },
        subject: subjectView(repo, item.number),
      };
    },
    addPullRequestReview: ({
      input,
    }: Input<{ pullRequestId: string; event?: string | null; body?: string | null }>) => {
      const { repo, pr } = pullForNode(ctx, input.pullRequestId);
      const state = REVIEW_EVENTS[input.event ?? "COMMENT"];
      if (!state) throw new WorldError("UNPROCESSABLE", `Pending reviews are not supported by the simulator`);
      const review = submitReview(world, repo, pr.number, {
        author: world.viewer,
        state,
        body: input.body ?? "",
      });
      const node = reviewView(ctx, repo, pr, review);
      return {
        clientMutationId: input.clientMutationId ?? null,
        pullRequestReview: node,
        reviewEdge: { cursor: encodeCursor(pr.reviews.length - 1), node },
      };
    },
    addLabelsToLabelable: ({ input }: Input<{ labelableId: string; labelIds: readonly string[] }>) => {
      const { repo, item } = subjectForNode(ctx, input.labelableId);
      changeLabels(world, repo, item.number, { add: labelNames(ctx, repo, input.labelIds) });
      return { clientMutationId: input.clientMutationId ?? null, labelable: subjectView(repo, item.number) };
    },
    removeLabelsFromLabelable: ({ input }: Input<{ labelableId: string; labelIds: readonly string[] }>) => {
      const { repo, item } = subjectForNode(ctx, input.labelableId);
      changeLabels(world, repo, item.number, { remove: labelNames(ctx, repo, input.labelIds) });
      return { clientMutationId: input.clientMutationId ?? null, labelable: subjectView(repo, item.number) };
    },
    createIssue: ({
      input,
    }: Input<{
      repositoryId: string;
      title: string;
      body?: string | null;
      labelIds?: readonly string[] | null;
      assigneeIds?: readonly string[] | null;
    }>) => {
      const repo = repoForNode(ctx, input.repositoryId);
      const issue = openIssue(world, repo, {
        title: input.title,
        body: input.body ?? "",
        author: world.viewer,
        labels: labelNames(ctx, repo, input.labelIds ?? []),
        assignees: loginsOf(ctx, input.assigneeIds),
      });
      return { clientMutationId: input.clientMutationId ?? null, issue: issueView(ctx, repo, issue) };
    },
    closePullRequest: ({ input }: Input<{ pullRequestId: string }>) => {
      const { repo, pr } = pullForNode(ctx, input.pullRequestId);
      setPullState(world, repo, pr.number, "closed");
      return {
        clientMutationId: input.clientMutationId ?? null,
        pullRequest: pullRequestView(ctx, repo, pr),
      };
    },
    reopenPullRequest: ({ input }: Input<{ pullRequestId: string }>) => {
      const { repo, pr } = pullForNode(ctx, input.pullRequestId);
      setPullState(world, repo, pr.number, "open");
      return {
        clientMutationId: input.clientMutationId ?? null,
        pullRequest: pullRequestView(ctx, repo, pr),
      };
    },
    markPullRequestReadyForReview: ({ input }: Input<{ pullRequestId: string }>) => {
      const { repo, pr } = pullForNode(ctx, input.pullRequestId);
      setDraft(world, repo, pr.number, false);
      return {
        clientMutationId: input.clientMutationId ?? null,
        pullRequest: pullRequestView(ctx, repo, pr),
      };
    },
    convertPullRequestToDraft: ({ input }: Input<{ pullRequestId: string }>) => {
      const { repo, pr } = pullForNode(ctx, input.pullRequestId);
      setDraft(world, repo, pr.number, true);
      return {
        clientMutationId: input.clientMutationId ?? null,
        pullRequest: pullRequestView(ctx, repo, pr),
      };
    },
    updatePullRequest: ({
      input,
    }: Input<{
      pullRequestId: string;
      title?: string | null;
      body?: string | null;
      baseRefName?: string | null;
    }>) => {
      const { repo, pr } = pullForNode(ctx, input.pullRequestId);
      if (input.title != null) pr.title = input.title;
      if (input.body != null) pr.body = input.body;
      if (input.baseRefName != null) pr.baseRef = input.baseRefName;
      world.touch(repo, "pull_request.edited", { number: pr.number }, pr);
      return {
        clientMutationId: input.clientMutationId ?? null,
        pullRequest: pullRequestView(ctx, repo, pr),
      };
    },
    requestReviews: ({
      input,
    }: Input<{ pullRequestId: string; userIds?: readonly string[] | null; union?: boolean | null }>) => {
      const { repo, pr } = pullForNode(ctx, input.pullRequestId);
      const logins = loginsOf(ctx, input.userIds);
      pr.requestedReviewers = input.union ? [...new Set([...pr.requestedReviewers, ...logins])] : logins;
      world.touch(repo, "pull_request.review_requested", { number: pr.number }, pr);
      return {
        clientMutationId: input.clientMutationId ?? null,
        pullRequest: pullRequestView(ctx, repo, pr),
      };
    },
    closeIssue: ({ input }: Input<{ issueId: string; stateReason?: "COMPLETED" | "NOT_PLANNED" | null }>) => {
      const { repo, item } = subjectForNode(ctx, input.issueId);
      const issue = setIssueState(world, repo, item.number, "closed", input.stateReason ?? "COMPLETED");
      return { clientMutationId: input.clientMutationId ?? null, issue: issueView(ctx, repo, issue) };
    },
    reopenIssue: ({ input }: Input<{ issueId: string }>) => {
      const { repo, item } = subjectForNode(ctx, input.issueId);
      const issue = setIssueState(world, repo, item.number, "open");
      return { clientMutationId: input.clientMutationId ?? null, issue: issueView(ctx, repo, issue) };
    },
    resolveReviewThread: ({ input }: Input<{ threadId: string }>) =>
      threadMutation(ctx, input.threadId, true, input.clientMutationId),
    unresolveReviewThread: ({ input }: Input<{ threadId: string }>) =>
      threadMutation(ctx, input.threadId, false, input.clientMutationId),
  };
}

function threadMutation(
  ctx: GqlContext,
  threadId: string,
  resolved: boolean,
  clientMutationId: string | null | undefined,
) {
  for (const repo of ctx.world.repos.values()) {
    for (const pr of repo.pulls.values()) {
      const thread = pr.reviewThreads.find((t) => t.nodeId === threadId);
      if (!thread) continue;
      resolveThread(ctx.world, repo, pr.number, thread.id, resolved);
      return { clientMutationId: clientMutationId ?? null, thread: reviewThreadView(ctx, repo, pr, thread) };
    }
  }
  throw notFoundNode(threadId);
}

/** Mutations that create content, for the secondary content-creation limit. */
export const CONTENT_CREATING_MUTATIONS: ReadonlySet<string> = new Set([
  "createPullRequest",
  "addComment",
  "addPullRequestReview",
  "createIssue",
  "addPullRequestReviewComment",
  "addPullRequestReviewThread",
]);
