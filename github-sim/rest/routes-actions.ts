/**
 * REST GitHub Actions routes: workflows, runs (filters gh uses: branch, status, event, head_sha),
 * one run, its jobs, artifacts and logs, one job and its log. Logs answer 302 to a blob URL on
 * the same host (`/_sim/blobs/...`, served without auth like GitHub's signed log URLs).
 */
import type { SimCheckRun, SimRepo, SimWorkflow, SimWorkflowRun } from "../core/model.js";
import { WorldError } from "../core/world-error.js";
import { slicePage } from "./pagination.js";
import type { RestContext, RestResult } from "./rest-types.js";
import { numberParam } from "./routes-pulls.js";
import { artifactShape, jobShape, workflowRunShape, workflowShape } from "./shapes/actions.js";

const CONCLUSIONS = new Set([
  "success",
  "failure",
  "neutral",
  "cancelled",
  "skipped",
  "timed_out",
  "action_required",
  "stale",
]);

function runParam(ctx: RestContext, repo: SimRepo): SimWorkflowRun {
  const run = repo.runs.get(numberParam(ctx, "run_id"));
  if (!run) throw new WorldError("NOT_FOUND", "Not Found");
  return run;
}

function jobsOf(repo: SimRepo, run: SimWorkflowRun): SimCheckRun[] {
  return run.jobIds.map((id) => repo.checkRuns.get(id)).filter((j): j is SimCheckRun => j !== undefined);
}

function workflowParam(ctx: RestContext, repo: SimRepo): SimWorkflow {
  const id = ctx.params.workflow_id ?? "";
  const wf = /^\d+$/.test(id)
    ? repo.workflows.get(Number(id))
    : [...repo.workflows.values()].find((w) => w.path.split("/").pop() === id);
  if (!wf) throw new WorldError("NOT_FOUND", "Not Found");
  return wf;
}

function runsResult(ctx: RestContext, repo: SimRepo, workflowId: number | undefined): RestResult {
  const q = ctx.request.query;
  const branch = q.get("branch");
  const status = q.get("status");
  const event = q.get("event");
  const headSha = q.get("head_sha");
  const actor = q.get("actor");
  const runs = [...repo.runs.values()]
    .filter(
      (r) =>
        (workflowId === undefined || r.workflowId === workflowId) &&
        (!branch || r.headBranch === branch) &&
        (!event || r.event === event) &&
        (!headSha || r.headSha === headSha) &&
        (!actor || r.actor === actor) &&
        (!status || (CONCLUSIONS.has(status) ? r.conclusion === status : r.status === status)),
    )
    .sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
  const page = slicePage(runs, q);
  const includePulls = q.get("exclude_pull_requests") !== "true";
  return {
    type: "json",
    body: {
      total_count: runs.length,
      workflow_runs: page.items.map((r) => workflowRunShape(ctx.shape, repo, r, includePulls)),
    },
    page: page.meta,
    lastModified: runs.length > 0 ? Math.max(...runs.map((r) => r.updatedAt)) : undefined,
  };
}

export function listRuns(ctx: RestContext): RestResult {
  return runsResult(ctx, ctx.repo(), undefined);
}

export function listWorkflowRuns(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  return runsResult(ctx, repo, workflowParam(ctx, repo).id);
}

export function getRun(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const run = runParam(ctx, repo);
  const includePulls = ctx.request.query.get("exclude_pull_requests") !== "true";
  return {
    type: "json",
    body: workflowRunShape(ctx.shape, repo, run, includePulls),
    lastModified: run.updatedAt,
  };
}

export function listRunJobs(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const run = runParam(ctx, repo);
  const jobs = jobsOf(repo, run);
  const page = slicePage(jobs, ctx.request.query);
  return {
    type: "json",
    body: { total_count: jobs.length, jobs: page.items.map((j) => jobShape(ctx.shape, repo, j)) },
    page: page.meta,
    lastModified: Math.max(run.updatedAt, ...jobs.map((j) => j.updatedAt)),
  };
}

export function listRunArtifacts(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const run = runParam(ctx, repo);
  const page = slicePage(run.artifacts, ctx.request.query);
  return {
    type: "json",
    body: {
      total_count: run.artifacts.length,
      artifacts: page.items.map((a) => artifactShape(ctx.shape, repo, run, a)),
    },
    page: page.meta,
  };
}

export function runLogs(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const run = runParam(ctx, repo);
  if (run.status !== "completed") throw new WorldError("NOT_FOUND", "Not Found");
  return { type: "redirect", location: `${ctx.shape.api}/_sim/blobs/run-logs/${repo.fullName}/${run.id}` };
}

function jobParam(ctx: RestContext, repo: SimRepo): SimCheckRun {
  const job = repo.checkRuns.get(numberParam(ctx, "job_id"));
  if (!job || job.runId === null) throw new WorldError("NOT_FOUND", "Not Found");
  return job;
}

export function getJob(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const job = jobParam(ctx, repo);
  return { type: "json", body: jobShape(ctx.shape, repo, job), lastModified: job.updatedAt };
}

export function jobLogs(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const job = jobParam(ctx, repo);
  return { type: "redirect", location: `${ctx.shape.api}/_sim/blobs/job-logs/${repo.fullName}/${job.id}` };
}

export function listWorkflows(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  const workflows = [...repo.workflows.values()];
  const page = slicePage(workflows, ctx.request.query);
  return {
    type: "json",
    body: {
      total_count: workflows.length,
      workflows: page.items.map((w) => workflowShape(ctx.shape, repo, w)),
    },
    page: page.meta,
  };
}

export function getWorkflow(ctx: RestContext): RestResult {
  const repo = ctx.repo();
  return { type: "json", body: workflowShape(ctx.shape, repo, workflowParam(ctx, repo)) };
}
