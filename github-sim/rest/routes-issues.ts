/**
 * REST issue routes: the issues list (which, as on GitHub, includes pull requests), one issue,
 * its comments (list and create).
 */
import { addIssueComment } from "../core/actions-issues.js";
import type { SimIssue, SimPullRequest } from "../core/model.js";
import { WorldError } from "../core/world-error.js";
import { slicePage } from "./pagination.js";
import type { RestContext, RestResult } from "./rest-types.js";
import { numberParam } from "./routes-pulls.js";
import { issueCommentShape, issueShape } from "./shapes/issues.js";

function itemParam(ctx: RestContext): SimIssue | SimPullRequest {
  const item = ctx.state.world.issueOrPull(ctx.repo(), numberParam(ctx, "issue_number"));
  if (!item) throw new WorldError("NOT_FOUND", "Not Found");
  return item;
}

export function listIssues(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const q = ctx.request.query;
  const state = q.get("state") ?? "open";
  const labels =
    q
      .get("labels")
      ?.split(",")
      .map((l) => l.trim().toLowerCase())
      .filter(Boolean) ?? [];
  const me = (v: string | null) => (v === "@me" ? ctx.state.world.viewer : v)?.toLowerCase();
  const assignee = me(q.get("assignee"));
  const creator = me(q.get("creator"));
  const sort = q.get("sort") ?? "created";
  const sign = (q.get("direction") ?? "desc") === "asc" ? 1 : -1;
  const key = (i: SimIssue | SimPullRequest) =>
    sort === "updated" ? i.updatedAt : sort === "comments" ? i.comments.length : i.createdAt;
  const items = [...repo.issues.values(), ...repo.pulls.values()]
    .filter(
      (i) =>
        (state === "all" || i.state === state) &&
        labels.every((l) => i.labels.some((name) => name.toLowerCase() === l)) &&
        (!assignee ||
          (assignee === "none"
            ? i.assignees.length === 0
            : i.assignees.some((a) => a.toLowerCase() === assignee))) &&
        (!creator || i.author.toLowerCase() === creator),
    )
    .sort((a, b) => sign * (key(a) - key(b) || a.number - b.number));
  const page = slicePage(items, q);
  return {
    type: "json",
    body: page.items.map((i) => issueShape(ctx.shape, repo, i)),
    page: page.meta,
    lastModified: page.items.length > 0 ? Math.max(...page.items.map((i) => i.updatedAt)) : undefined,
  };
}

export function getIssue(ctx: RestContext): RestResult {
  const item = itemParam(ctx);
  return { type: "json", body: issueShape(ctx.shape, ctx.repo(), item), lastModified: item.updatedAt };
}

export function listIssueComments(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const item = itemParam(ctx);
  const page = slicePage(item.comments, ctx.request.query);
  return {
    type: "json",
    body: page.items.map((c) => issueCommentShape(ctx.shape, repo, item, c)),
    page: page.meta,
    lastModified:
      item.comments.length > 0 ? Math.max(...item.comments.map((c) => c.updatedAt)) : item.createdAt,
  };
}

export function createIssueComment(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const item = itemParam(ctx);
  let body: unknown;
  try {
    body = (JSON.parse(ctx.request.body.toString("utf8")) as { body?: unknown }).body;
  } catch {
    throw new WorldError("INVALID", "Problems parsing JSON");
  }
  if (typeof body !== "string")
    throw new WorldError("UNPROCESSABLE", 'Invalid request.\n\n"body" wasn\'t supplied.');
  const comment = addIssueComment(ctx.state.world, repo, item.number, {
    author: ctx.state.world.viewer,
    body,
  });
  return { type: "json", status: 201, body: issueCommentShape(ctx.shape, repo, item, comment) };
}
