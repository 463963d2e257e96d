/**
 * REST commit CI routes: check runs and suites for a ref, combined status and statuses, one
 * check run and its annotations. A ref is a SHA or a branch name.
 */
import { effectiveStatuses, latestCheckRuns } from "../core/derived-state.js";
import type { SimCheckRun, SimCommit, SimRepo } from "../core/model.js";
import { WorldError } from "../core/world-error.js";
import { slicePage } from "./pagination.js";
import type { RestContext, RestResult } from "./rest-types.js";
import { numberParam } from "./routes-pulls.js";
import {
  annotationShape,
  checkRunShape,
  checkSuiteShape,
  combinedStatusShape,
  statusShape,
} from "./shapes/checks.js";

export function commitParam(ctx: RestContext, repo: SimRepo): SimCommit {
  const ref = ctx.params.ref ?? "";
  const sha = repo.branches.get(ref) ?? ref;
  const commit =
    repo.commits.get(sha) ??
    (sha.length >= 7 ? [...repo.commits.values()].find((c) => c.sha.startsWith(sha)) : undefined);
  if (!commit) throw new WorldError("NOT_FOUND", `No commit found for SHA: ${ref}`);
  return commit;
}

function newest(runs: readonly SimCheckRun[]): number | undefined {
  return runs.length > 0 ? Math.max(...runs.map((r) => r.updatedAt)) : undefined;
}

export function listCheckRunsForRef(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const commit = commitParam(ctx, repo);
  const q = ctx.request.query;
  const all =
    q.get("filter") === "all"
      ? commit.checkRunIds
          .map((id) => repo.checkRuns.get(id))
          .filter((r): r is SimCheckRun => r !== undefined)
      : latestCheckRuns(repo, commit);
  const name = q.get("check_name");
  const status = q.get("status");
  const runs = all
    .filter((r) => (!name || r.name === name) && (!status || r.status === status))
    .sort((a, b) => b.id - a.id);
  const page = slicePage(runs, q);
  return {
    type: "json",
    body: { total_count: runs.length, check_runs: page.items.map((r) => checkRunShape(ctx.shape, repo, r)) },
    page: page.meta,
    lastModified: newest(runs) ?? commit.committedAt,
  };
}

export function listCheckSuitesForRef(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const commit = commitParam(ctx, repo);
  const suites = commit.checkSuiteIds.map((id) => repo.checkSuites.get(id)).filter((s) => s !== undefined);
  const page = slicePage(suites, ctx.request.query);
  return {
    type: "json",
    body: {
      total_count: suites.length,
      check_suites: page.items.map((s) => checkSuiteShape(ctx.shape, repo, s)),
    },
    page: page.meta,
  };
}

export function combinedStatusForRef(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const commit = commitParam(ctx, repo);
  const statuses = effectiveStatuses(commit);
  return {
    type: "json",
    body: combinedStatusShape(ctx.shape, repo, commit),
    lastModified: statuses.length > 0 ? Math.max(...statuses.map((s) => s.updatedAt)) : commit.committedAt,
  };
}

export function listStatusesForRef(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const commit = commitParam(ctx, repo);
  const statuses = [...commit.statuses].reverse();
  const page = slicePage(statuses, ctx.request.query);
  return {
    type: "json",
    body: page.items.map((s) => statusShape(ctx.shape, repo, commit, s)),
    page: page.meta,
  };
}

function checkRunParam(ctx: RestContext, repo: SimRepo): SimCheckRun {
  const run = repo.checkRuns.get(numberParam(ctx, "check_run_id"));
  if (!run) throw new WorldError("NOT_FOUND", "Not Found");
  return run;
}

export function getCheckRun(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const run = checkRunParam(ctx, repo);
  return { type: "json", body: checkRunShape(ctx.shape, repo, run), lastModified: run.updatedAt };
}

export function listAnnotations(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const run = checkRunParam(ctx, repo);
  const page = slicePage(
    run.annotations.map((_, i) => i),
    ctx.request.query,
  );
  return {
    type: "json",
    body: page.items.map((i) => annotationShape(ctx.shape, repo, run, i)),
    page: page.meta,
    lastModified: run.updatedAt,
  };
}
