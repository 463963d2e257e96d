/**
 * REST pull request routes: list (state/head/base/sort/direction), one PR (JSON or diff), its
 * review comments, reviews and files, and merge.
 */
import { mergePullRequest } from "../core/actions-pulls.js";
import type { SimPullRequest } from "../core/model.js";
import { WorldError } from "../core/world-error.js";
import { slicePage } from "./pagination.js";
import type { RestContext, RestResult } from "./rest-types.js";
import { pullDiff, pullFull, pullSimple, reviewCommentShape, reviewShape } from "./shapes/pulls.js";

export function numberParam(ctx: RestContext, name: string): number {
  const value = Number(ctx.params[name]);
  if (!Number.isSafeInteger(value) || value <= 0) throw new WorldError("NOT_FOUND", "Not Found");
  return value;
}

export function pullParam(ctx: RestContext): SimPullRequest {
  const pr = ctx.repo().pulls.get(numberParam(ctx, "pull_number"));
  if (!pr) throw new WorldError("NOT_FOUND", "Not Found");
  return pr;
}

function newest(times: readonly number[]): number | undefined {
  return times.length > 0 ? Math.max(...times) : undefined;
}

export function listPulls(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const q = ctx.request.query;
  const state = q.get("state") ?? "open";
  const head = q.get("head");
  const headRef = head?.includes(":") ? head.split(":")[1] : head;
  const base = q.get("base");
  const sort = q.get("sort") ?? "created";
  const direction = q.get("direction") ?? (sort === "created" ? "desc" : "asc");
  const key = (pr: SimPullRequest) => (sort === "updated" ? pr.updatedAt : pr.createdAt);
  const items = [...repo.pulls.values()]
    .filter(
      (pr) =>
        (state === "all" || pr.state === state) &&
        (!headRef || pr.headRef === headRef) &&
        (!base || pr.baseRef === base),
    )
    .sort((a, b) => (direction === "asc" ? 1 : -1) * (key(a) - key(b) || a.number - b.number));
  const page = slicePage(items, q);
  return {
    type: "json",
    body: page.items.map((pr) => pullSimple(ctx.shape, repo, pr)),
    page: page.meta,
    lastModified: newest(page.items.map((pr) => pr.updatedAt)),
  };
}

export function getPull(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const pr = pullParam(ctx);
  const accept = ctx.request.headers.accept ?? "";
  if (/\.diff|\.patch/.test(accept)) {
    return {
      type: "text",
      body: pullDiff(pr),
      contentType: "application/vnd.github.v3.diff; charset=utf-8",
      lastModified: pr.updatedAt,
    };
  }
  return { type: "json", body: pullFull(ctx.shape, repo, pr), lastModified: pr.updatedAt };
}

export function listReviewComments(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const pr = pullParam(ctx);
  const page = slicePage(pr.reviewComments, ctx.request.query);
  return {
    type: "json",
    body: page.items.map((c) => reviewCommentShape(ctx.shape, repo, pr, c)),
    page: page.meta,
    lastModified: newest(pr.reviewComments.map((c) => c.updatedAt)) ?? pr.createdAt,
  };
}

export function listReviews(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const pr = pullParam(ctx);
  const page = slicePage(pr.reviews, ctx.request.query);
  return {
    type: "json",
    body: page.items.map((r) => reviewShape(ctx.shape, repo, pr, r)),
    page: page.meta,
    lastModified: newest(pr.reviews.map((r) => r.submittedAt)) ?? pr.createdAt,
  };
}

export function listPullFiles(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const pr = pullParam(ctx);
  const page = slicePage(pr.files, ctx.request.query);
  return {
    type: "json",
    page: page.meta,
    lastModified: pr.updatedAt,
    body: page.items.map((f) => ({
      sha: pr.headSha,
      filename: f.path,
      status: f.status,
      additions: f.additions,
      deletions: f.deletions,
      changes: f.additions + f.deletions,
      blob_url: `${ctx.shape.web}/${repo.fullName}/blob/${pr.headSha}/${f.path}`,
      raw_url: `${ctx.shape.web}/${repo.fullName}/raw/${pr.headSha}/${f.path}`,
      contents_url: `${ctx.shape.api}/repos/${repo.fullName}/contents/${f.path}?ref=${pr.headSha}`,
    })),
  };
}

export function mergePull(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const pr = pullParam(ctx);
  let method: "MERGE" | "SQUASH" | "REBASE" = "MERGE";
  try {
    const body =
      ctx.request.body.length > 0
        ? (JSON.parse(ctx.request.body.toString("utf8")) as { merge_method?: unknown })
        : {};
    if (body.merge_method === "squash") method = "SQUASH";
    else if (body.merge_method === "rebase") method = "REBASE";
  } catch {
    throw new WorldError("INVALID", "Problems parsing JSON");
  }
  mergePullRequest(ctx.state.world, repo, pr.number, { method, by: ctx.state.world.viewer });
  return {
    type: "json",
    body: { sha: pr.mergeCommitSha, merged: true, message: "Pull Request successfully merged" },
  };
}
