/**
 * REST routes outside pulls/issues/CI: the API root, the free rate-limit report, the authenticated user,
 * users, the repository, branch deletion (`DELETE .../git/refs/heads/BRANCH`, what `gh pr merge
 * --delete-branch` sends) and issue search (the `search` bucket).
 */
import { deleteBranch } from "../core/actions-pulls.js";
import { searchIssues } from "../core/search-query.js";
import { WorldError } from "../core/world-error.js";
import { slicePage } from "./pagination.js";
import type { RestContext, RestResult } from "./rest-types.js";
import { issueShape } from "./shapes/issues.js";
import { fullRepository } from "./shapes/repos.js";
import { authenticatedUser } from "./shapes/users.js";

export function rateLimit(ctx: RestContext): RestResult {
  const snaps = ctx.state.snapshots();
  const strip = (s: { limit: number; used: number; remaining: number; reset: number }) => ({
    limit: s.limit,
    used: s.used,
    remaining: s.remaining,
    reset: s.reset,
  });
  const idle = (limit: number) => ({ limit, used: 0, remaining: limit, reset: snaps.core.reset });
  return {
    type: "json",
    body: {
      resources: {
        core: strip(snaps.core),
        graphql: strip(snaps.graphql),
        search: strip(snaps.search),
        code_search: idle(10),
        integration_manifest: idle(5000),
        source_import: idle(100),
        code_scanning_upload: idle(1000),
        actions_runner_registration: idle(10000),
        scim: idle(15000),
        dependency_snapshots: idle(100),
      },
      rate: strip(snaps.core),
    },
  };
}

/**
 * `GET /`: GitHub's map of URL templates (https://docs.github.com/en/rest/meta/meta#github-api-root),
 * which `gh auth status` asks for to check the token.
 */
export function apiRoot(ctx: RestContext): RestResult {
  const api = ctx.shape.api;
  return {
    type: "json",
    body: {
      current_user_url: `${api}/user`,
      authorizations_url: `${ctx.shape.web}/settings/connections/applications{/client_id}`,
      emojis_url: `${api}/emojis`,
      issue_search_url: `${api}/search/issues?q={query}{&page,per_page,sort,order}`,
      rate_limit_url: `${api}/rate_limit`,
      repository_url: `${api}/repos/{owner}/{repo}`,
      user_url: `${api}/users/{user}`,
    },
  };
}

export function getAuthenticatedUser(ctx: RestContext): RestResult {
  const user = ctx.state.world.user(ctx.state.world.viewer);
  if (!user) throw new WorldError("NOT_FOUND", "Not Found");
  return { type: "json", body: authenticatedUser(ctx.shape, user) };
}

export function getUser(ctx: RestContext): RestResult {
  const user = ctx.state.world.user(ctx.params.username ?? "");
  if (!user) throw new WorldError("NOT_FOUND", "Not Found");
  const {
    two_factor_authentication: _2fa,
    plan: _plan,
    private_gists: _pg,
    total_private_repos: _tpr,
    owned_private_repos: _opr,
    disk_usage: _du,
    collaborators: _c,
    ...pub
  } = authenticatedUser(ctx.shape, user);
  return { type: "json", body: pub };
}

export function getRepository(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  return {
    type: "json",
    body: fullRepository(ctx.shape, repo),
    lastModified: Math.max(repo.updatedAt, repo.pushedAt),
  };
}

export function deleteRef(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const ref = ctx.params.ref ?? "";
  if (!ref.startsWith("heads/")) throw new WorldError("UNPROCESSABLE", "Reference does not exist");
  deleteBranch(ctx.state.world, repo, ref.slice("heads/".length));
  return { type: "empty", status: 204 };
}

export function searchIssuesRoute(ctx: RestContext): RestResult {
  const q = ctx.request.query.get("q");
  if (!q) {
    throw new WorldError("UNPROCESSABLE", "Validation Failed");
  }
  const results = searchIssues(ctx.state.world, q);
  const page = slicePage(results, ctx.request.query);
  return {
    type: "json",
    page: page.meta,
    body: {
      total_count: results.length,
      incomplete_results: false,
      search_type: "lexical",
      items: page.items.map(({ repo, item }) => ({ ...issueShape(ctx.shape, repo, item), score: 1 })),
    },
  };
}
