/**
 * Changes to pull requests and branches, as GitHub performs them: open, merge, close, reopen,
 * ready for review, push (moves the head SHA of every open PR on the branch), reviews and review
 * comments, mergeability, branch deletion. Each validates like GitHub (a WorldError in GitHub's
 * words when refused), applies the change and records it with `world.touch()`.
 */
import { buildCommit, buildPull, type PullInput } from "./builders.js";
import { buildReview, buildReviewComment, type ReviewInput } from "./builders-social.js";
import { fakeSha } from "./ids.js";
import type { Mergeable, SimPullRequest, SimRepo } from "./model.js";
import type { World } from "./world.js";
import { WorldError } from "./world-error.js";

export function openPullRequest(world: World, repo: SimRepo, input: Omit<PullInput, "at">): SimPullRequest {
  const existing = [...repo.pulls.values()].find(
    (p) => p.state === "open" && p.headRef === input.head && p.baseRef === (input.base ?? repo.defaultBranch),
  );
  if (existing) {
    throw new WorldError("UNPROCESSABLE", `A pull request already exists for ${repo.owner}:${input.head}.`);
  }
  const pr = buildPull(world, repo, { ...input, at: world.now() });
  world.touch(repo, "pull_request.opened", { number: pr.number }, pr);
  return pr;
}

export type MergeMethod = "MERGE" | "SQUASH" | "REBASE";

export function mergePullRequest(
  world: World,
  repo: SimRepo,
  number: number,
  options: {
    method?: MergeMethod | undefined;
    by?: string | undefined;
    expectedHeadOid?: string | undefined;
  } = {},
): SimPullRequest {
  const pr = world.requirePull(repo, number);
  if (pr.merged) throw new WorldError("UNPROCESSABLE", "Pull request is already merged");
  if (pr.state !== "open") throw new WorldError("UNPROCESSABLE", "Pull request is closed");
  if (pr.draft) throw new WorldError("UNPROCESSABLE", "Pull request is in draft state");
  if (pr.mergeable === "CONFLICTING") throw new WorldError("UNPROCESSABLE", "Pull request is not mergeable");
  if (options.expectedHeadOid && options.expectedHeadOid !== pr.headSha) {
    throw new WorldError("UNPROCESSABLE", "Head branch was modified. Review and try the merge again.");
  }
  const at = world.now();
  const method = options.method ?? "MERGE";
  const message =
    method === "MERGE"
      ? `Merge pull request #${pr.number} from ${repo.owner}/${pr.headRef}`
      : `${pr.title} (#${pr.number})`;
  const commit = buildCommit(world, repo, {
    branch: pr.baseRef,
    message,
    author: options.by ?? world.viewer,
    sha: fakeSha(`merge:${repo.fullName}#${pr.number}:${pr.headSha}`),
    at,
  });
  pr.state = "closed";
  pr.merged = true;
  pr.mergedAt = at;
  pr.closedAt = at;
  pr.mergedBy = options.by ?? world.viewer;
  pr.mergeCommitSha = commit.sha;
  world.touch(repo, "push", { ref: pr.baseRef });
  world.touch(repo, "pull_request.merged", { number: pr.number }, pr);
  return pr;
}

export function setPullState(
  world: World,
  repo: SimRepo,
  number: number,
  state: "open" | "closed",
): SimPullRequest {
  const pr = world.requirePull(repo, number);
  if (pr.merged) throw new WorldError("UNPROCESSABLE", "Pull request is already merged");
  if (pr.state === state) return pr;
  pr.state = state;
  pr.closedAt = state === "closed" ? world.now() : null;
  world.touch(repo, state === "closed" ? "pull_request.closed" : "pull_request.reopened", { number }, pr);
  return pr;
}

export function setDraft(world: World, repo: SimRepo, number: number, draft: boolean): SimPullRequest {
  const pr = world.requirePull(repo, number);
  if (pr.draft === draft) return pr;
  pr.draft = draft;
  world.touch(
    repo,
    draft ? "pull_request.converted_to_draft" : "pull_request.ready_for_review",
    { number },
    pr,
  );
  return pr;
}

export function setMergeable(
  world: World,
  repo: SimRepo,
  number: number,
  mergeable: Mergeable,
  mergeState?: string | null,
): SimPullRequest {
  const pr = world.requirePull(repo, number);
  pr.mergeable = mergeable;
  if (mergeState !== undefined) pr.mergeStateOverride = mergeState;
  world.touch(repo, "pull_request.mergeable", { number }, pr);
  return pr;
}

/**
 * A push to `branch`: a new commit on top of it; every open PR with that head follows (new head
 * SHA, one more commit). Returns the new SHA.
 */
export function pushCommit(
  world: World,
  repo: SimRepo,
  input: {
    branch: string;
    message?: string | undefined;
    author?: string | undefined;
    sha?: string | undefined;
  },
): string {
  const commit = buildCommit(world, repo, {
    branch: input.branch,
    message: input.message ?? `Update ${input.branch}`,
    author: input.author ?? world.viewer,
    sha: input.sha,
    at: world.now(),
  });
  world.touch(repo, "push", { ref: input.branch });
  for (const pr of repo.pulls.values()) {
    if (pr.state !== "open" || pr.headRef !== input.branch) continue;
    pr.headSha = commit.sha;
    pr.commits.push(commit.sha);
    world.touch(repo, "pull_request.synchronize", { number: pr.number }, pr);
  }
  return commit.sha;
}

export function submitReview(
  world: World,
  repo: SimRepo,
  number: number,
  input: Omit<ReviewInput, "at">,
): ReturnType<typeof buildReview> {
  const pr = world.requirePull(repo, number);
  if (pr.state !== "open") throw new WorldError("UNPROCESSABLE", "Can not review a closed pull request");
  if (input.state === "APPROVED" || input.state === "CHANGES_REQUESTED") {
    if (input.author.toLowerCase() === pr.author.toLowerCase()) {
      const verb = input.state === "APPROVED" ? "approve" : "request changes on";
      throw new WorldError("UNPROCESSABLE", `Can not ${verb} your own pull request`);
    }
  }
  if (input.state !== "APPROVED" && input.state !== "COMMENTED" && !input.body && !input.comments?.length) {
    throw new WorldError("UNPROCESSABLE", "Review body is required when requesting changes");
  }
  const review = buildReview(world, repo, pr, { ...input, at: world.now() });
  world.touch(repo, "pull_request_review.submitted", { number, id: review.id }, pr);
  return review;
}

export function addReviewComment(
  world: World,
  repo: SimRepo,
  number: number,
  input: { author: string; body: string; path: string; line: number; inReplyTo?: number | undefined },
) {
  const pr = world.requirePull(repo, number);
  const comment = buildReviewComment(world, pr, { ...input, reviewId: null, at: world.now() });
  world.touch(repo, "pull_request_review_comment.created", { number, id: comment.id }, pr);
  return comment;
}

export function resolveThread(
  world: World,
  repo: SimRepo,
  number: number,
  threadId: number,
  resolved: boolean,
) {
  const pr = world.requirePull(repo, number);
  const thread = pr.reviewThreads.find((t) => t.id === threadId);
  if (!thread)
    throw new WorldError("NOT_FOUND", `Could not resolve to a PullRequestReviewThread ${threadId}.`);
  thread.isResolved = resolved;
  world.touch(
    repo,
    resolved ? "review_thread.resolved" : "review_thread.unresolved",
    { number, id: threadId },
    pr,
  );
  return thread;
}

export function deleteBranch(world: World, repo: SimRepo, branch: string): void {
  if (!repo.branches.has(branch)) throw new WorldError("UNPROCESSABLE", "Reference does not exist");
  if (branch === repo.defaultBranch) {
    throw new WorldError("UNPROCESSABLE", "Cannot delete the default branch");
  }
  repo.branches.delete(branch);
  world.touch(repo, "delete", { ref: branch });
  for (const pr of repo.pulls.values()) {
    if (pr.state === "open" && pr.headRef === branch) {
      pr.state = "closed";
      pr.closedAt = world.now();
      world.touch(repo, "pull_request.closed", { number: pr.number }, pr);
    }
  }
}
