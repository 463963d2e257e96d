/**
 * REST issue objects (issues and, in the issues API, pull requests with a `pull_request` key),
 * issue comments and labels.
 */

import { authorAssociation } from "../../core/derived-state.js";
import type { SimComment, SimIssue, SimLabel, SimPullRequest, SimRepo } from "../../core/model.js";
import { reactions, restTime, type ShapeContext } from "./context.js";
import { simpleUser } from "./users.js";

export function labelShape(ctx: ShapeContext, repo: SimRepo, label: SimLabel) {
  return {
    id: label.id,
    node_id: label.nodeId,
    url: `${ctx.api}/repos/${repo.fullName}/labels/${encodeURIComponent(label.name)}`,
    name: label.name,
    color: label.color,
    default: label.isDefault,
    description: label.description,
  };
}

export function issueShape(ctx: ShapeContext, repo: SimRepo, item: SimIssue | SimPullRequest) {
  const api = `${ctx.api}/repos/${repo.fullName}`;
  const url = `${api}/issues/${item.number}`;
  const isPull = item.kind === "pr";
  const html = `${ctx.web}/${repo.fullName}/${isPull ? "pull" : "issues"}/${item.number}`;
  const assignees = item.assignees.map((a) => simpleUser(ctx, a));
  const stateReason = item.kind === "issue" && item.stateReason ? item.stateReason.toLowerCase() : null;
  return {
    url,
    repository_url: api,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: html,
    id: item.id,
    node_id: item.nodeId,
    number: item.number,
    title: item.title,
    user: simpleUser(ctx, item.author),
    labels: repo.labels.filter((l) => item.labels.includes(l.name)).map((l) => labelShape(ctx, repo, l)),
    state: item.state,
    locked: item.locked,
    assignee: assignees[0] ?? null,
    assignees,
    milestone: null,
    comments: item.comments.length,
    created_at: restTime(item.createdAt),
    updated_at: restTime(item.updatedAt),
    closed_at: restTime(item.closedAt),
    author_association: authorAssociation(repo, item.author),
    active_lock_reason: null,
    ...(isPull
      ? {
          draft: item.draft,
          pull_request: {
            url: `${api}/pulls/${item.number}`,
            html_url: html,
            diff_url: `${html}.diff`,
            patch_url: `${html}.patch`,
            merged_at: restTime(item.mergedAt),
          },
        }
      : {}),
    body: item.body || null,
    closed_by: null,
    reactions: reactions(url),
    timeline_url: `${url}/timeline`,
    performed_via_github_app: null,
    state_reason: stateReason,
  };
}

export function issueCommentShape(
  ctx: ShapeContext,
  repo: SimRepo,
  item: SimIssue | SimPullRequest,
  c: SimComment,
) {
  const api = `${ctx.api}/repos/${repo.fullName}`;
  const url = `${api}/issues/comments/${c.id}`;
  return {
    url,
    html_url: `${ctx.web}/${repo.fullName}/${item.kind === "pr" ? "pull" : "issues"}/${item.number}#issuecomment-${c.id}`,
    issue_url: `${api}/issues/${item.number}`,
    id: c.id,
    node_id: c.nodeId,
    user: simpleUser(ctx, c.author),
    created_at: restTime(c.createdAt),
    updated_at: restTime(c.updatedAt),
    author_association: authorAssociation(repo, c.author),
    body: c.body,
    reactions: reactions(url),
    performed_via_github_app: null,
  };
}
