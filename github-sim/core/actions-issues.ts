/**
 * Changes shared by issues and pull requests (GitHub's "issue" half of a PR): opening issues,
 * conversation comments, labels, assignees, closing and reopening issues. Each records a change.
 */
import { buildIssue, buildLabel, type IssueInput } from "./builders.js";
import { buildComment } from "./builders-social.js";
import type { SimComment, SimIssue, SimPullRequest, SimRepo } from "./model.js";
import type { World } from "./world.js";
import { WorldError } from "./world-error.js";

export function openIssue(world: World, repo: SimRepo, input: Omit<IssueInput, "at">): SimIssue {
  if (!input.title.trim()) throw new WorldError("UNPROCESSABLE", "Title can't be blank");
  const issue = buildIssue(world, repo, { ...input, at: world.now() });
  world.touch(repo, "issues.opened", { number: issue.number }, issue);
  return issue;
}

function requireIssueOrPull(world: World, repo: SimRepo, number: number): SimIssue | SimPullRequest {
  const target = world.issueOrPull(repo, number);
  if (!target) {
    throw new WorldError(
      "NOT_FOUND",
      `Could not resolve to an issue or pull request with the number of ${number}.`,
    );
  }
  return target;
}

export function addIssueComment(
  world: World,
  repo: SimRepo,
  number: number,
  input: { author: string; body: string },
): SimComment {
  if (!input.body.trim()) throw new WorldError("UNPROCESSABLE", "Body cannot be blank");
  const target = requireIssueOrPull(world, repo, number);
  const comment = buildComment(world, repo, target, { ...input, at: world.now() });
  world.touch(repo, "issue_comment.created", { number, id: comment.id }, target);
  return comment;
}

export function changeLabels(
  world: World,
  repo: SimRepo,
  number: number,
  change: { add?: readonly string[] | undefined; remove?: readonly string[] | undefined },
): SimIssue | SimPullRequest {
  const target = requireIssueOrPull(world, repo, number);
  const at = world.now();
  const names = new Set(target.labels);
  for (const name of change.add ?? []) names.add(buildLabel(world, repo, { name, at }).name);
  for (const name of change.remove ?? []) {
    for (const existing of names) if (existing.toLowerCase() === name.toLowerCase()) names.delete(existing);
  }
  target.labels = [...names];
  world.touch(repo, target.kind === "pr" ? "pull_request.labeled" : "issues.labeled", { number }, target);
  return target;
}

export function setIssueState(
  world: World,
  repo: SimRepo,
  number: number,
  state: "open" | "closed",
  reason: "COMPLETED" | "NOT_PLANNED" = "COMPLETED",
): SimIssue {
  const issue = repo.issues.get(number);
  if (!issue)
    throw new WorldError("NOT_FOUND", `Could not resolve to an Issue with the number of ${number}.`);
  if (issue.state === state) return issue;
  issue.state = state;
  issue.stateReason = state === "closed" ? reason : "REOPENED";
  issue.closedAt = state === "closed" ? world.now() : null;
  world.touch(repo, state === "closed" ? "issues.closed" : "issues.reopened", { number }, issue);
  return issue;
}
