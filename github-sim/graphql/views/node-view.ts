/**
 * Resolves a global node id to its view (`node(id:)`, `nodes(ids:)`, mutation inputs). Unknown
 * ids fail with GitHub's NOT_FOUND text.
 */
import type { SimIssue, SimPullRequest, SimRepo } from "../../core/model.js";
import { WorldError } from "../../core/world-error.js";
import type { GqlContext } from "../context.js";
import { labelView, userView, type View } from "./actors.js";
import { checkRunView } from "./check-views.js";
import { issueCommentView, reviewView } from "./comment-views.js";
import { commitView } from "./commit-view.js";
import { issueView } from "./issue-view.js";
import { pullRequestView } from "./pull-request-view.js";
import { repositoryView } from "./repository-view.js";

export function notFoundNode(id: string): WorldError {
  return new WorldError("NOT_FOUND", `Could not resolve to a node with the global id of '${id}'.`);
}

export function nodeView(ctx: GqlContext, id: string): View | null {
  const ref = ctx.world.resolveNode(id);
  if (!ref) return null;
  if ("login" in ref) {
    const user = ctx.world.user(ref.login);
    return user ? userView(ctx, user) : null;
  }
  const repo = ctx.world.repo(ref.repo);
  if (!repo) return null;
  switch (ref.type) {
    case "Repository":
      return repositoryView(ctx, repo);
    case "PullRequest": {
      const pr = repo.pulls.get(ref.number);
      return pr ? pullRequestView(ctx, repo, pr) : null;
    }
    case "Issue": {
      const issue = repo.issues.get(ref.number);
      return issue ? issueView(ctx, repo, issue) : null;
    }
    case "Label": {
      const label = repo.labels.find((l) => l.name === ref.name);
      return label ? labelView(ctx, repo, label) : null;
    }
    case "CheckRun": {
      const run = repo.checkRuns.get(ref.id);
      return run ? checkRunView(ctx, repo, run) : null;
    }
    case "Commit": {
      const commit = repo.commits.get(ref.sha);
      return commit ? commitView(ctx, repo, commit) : null;
    }
    case "IssueComment": {
      const target = ctx.world.issueOrPull(repo, ref.number);
      const comment = target?.comments.find((c) => c.id === ref.id);
      return target && comment
        ? issueCommentView(ctx, repo, target.number, target.kind === "pr", comment)
        : null;
    }
    case "PullRequestReview": {
      const pr = repo.pulls.get(ref.number);
      const review = pr?.reviews.find((r) => r.id === ref.id);
      return pr && review ? reviewView(ctx, repo, pr, review) : null;
    }
  }
}

/** The repository and pull request behind a PullRequest node id. */
export function pullForNode(ctx: GqlContext, id: string): { repo: SimRepo; pr: SimPullRequest } {
  const ref = ctx.world.resolveNode(id);
  const repo = ref && "repo" in ref ? ctx.world.repo(ref.repo) : undefined;
  const pr = repo && ref?.type === "PullRequest" ? repo.pulls.get(ref.number) : undefined;
  if (!repo || !pr) throw notFoundNode(id);
  return { repo, pr };
}

/** The repository and issue or pull request behind an Issue / PullRequest node id. */
export function subjectForNode(
  ctx: GqlContext,
  id: string,
): { repo: SimRepo; item: SimIssue | SimPullRequest } {
  const ref = ctx.world.resolveNode(id);
  const repo = ref && "repo" in ref ? ctx.world.repo(ref.repo) : undefined;
  const item =
    repo && ref?.type === "PullRequest"
      ? repo.pulls.get(ref.number)
      : repo && ref?.type === "Issue"
        ? repo.issues.get(ref.number)
        : undefined;
  if (!repo || !item) throw notFoundNode(id);
  return { repo, item };
}

export function repoForNode(ctx: GqlContext, id: string): SimRepo {
  const ref = ctx.world.resolveNode(id);
  const repo = ref?.type === "Repository" ? ctx.world.repo(ref.repo) : undefined;
  if (!repo) throw notFoundNode(id);
  return repo;
}
