/**
 * REST GitHub Actions objects: workflows, workflow runs, jobs (with steps) and artifacts. gh
 * follows `jobs_url` as given, so it is built on the API base the client used.
 */
import type { SimArtifact, SimCheckRun, SimRepo, SimWorkflow, SimWorkflowRun } from "../../core/model.js";
import { simpleCommit } from "./checks.js";
import { restTime, type ShapeContext } from "./context.js";
import { minimalRepo } from "./repos.js";
import { simpleUser } from "./users.js";

export function workflowShape(ctx: ShapeContext, repo: SimRepo, wf: SimWorkflow) {
  return {
    id: wf.id,
    node_id: wf.nodeId,
    name: wf.name,
    path: wf.path,
    state: "active",
    created_at: restTime(wf.createdAt),
    updated_at: restTime(wf.createdAt),
    url: `${ctx.api}/repos/${repo.fullName}/actions/workflows/${wf.id}`,
    html_url: `${ctx.web}/${repo.fullName}/blob/${repo.defaultBranch}/${wf.path}`,
    badge_url: `${ctx.web}/${repo.fullName}/workflows/${encodeURIComponent(wf.name)}/badge.svg`,
  };
}

export function workflowRunShape(
  ctx: ShapeContext,
  repo: SimRepo,
  run: SimWorkflowRun,
  includePulls: boolean,
) {
  const api = `${ctx.api}/repos/${repo.fullName}`;
  const url = `${api}/actions/runs/${run.id}`;
  const wf = repo.workflows.get(run.workflowId);
  const commit = repo.commits.get(run.headSha);
  const repoRef = { id: repo.id, url: api, name: repo.name };
  const pulls = includePulls
    ? [...repo.pulls.values()]
        .filter((pr) => pr.state === "open" && pr.headRef === run.headBranch)
        .map((pr) => ({
          id: pr.id,
          number: pr.number,
          url: `${api}/pulls/${pr.number}`,
          head: { ref: pr.headRef, sha: pr.headSha, repo: repoRef },
          base: { ref: pr.baseRef, sha: pr.baseSha, repo: repoRef },
        }))
    : [];
  return {
    id: run.id,
    name: run.name,
    node_id: run.nodeId,
    check_suite_id: run.suiteId,
    check_suite_node_id: `CS_${run.suiteId}`,
    head_branch: run.headBranch,
    head_sha: run.headSha,
    path: wf?.path ?? "",
    display_title: run.displayTitle,
    run_number: run.runNumber,
    event: run.event,
    status: run.status,
    conclusion: run.conclusion,
    workflow_id: run.workflowId,
    url,
    html_url: `${ctx.web}/${repo.fullName}/actions/runs/${run.id}`,
    pull_requests: pulls,
    created_at: restTime(run.createdAt),
    updated_at: restTime(run.updatedAt),
    actor: simpleUser(ctx, run.actor),
    triggering_actor: simpleUser(ctx, run.actor),
    run_attempt: run.runAttempt,
    referenced_workflows: [],
    run_started_at: restTime(run.runStartedAt),
    jobs_url: `${url}/jobs`,
    logs_url: `${url}/logs`,
    check_suite_url: `${api}/check-suites/${run.suiteId}`,
    artifacts_url: `${url}/artifacts`,
    cancel_url: `${url}/cancel`,
    rerun_url: `${url}/rerun`,
    previous_attempt_url: null,
    workflow_url: `${api}/actions/workflows/${run.workflowId}`,
    head_commit: commit ? simpleCommit(commit) : null,
    repository: minimalRepo(ctx, repo),
    head_repository: minimalRepo(ctx, repo),
  };
}

export function jobShape(ctx: ShapeContext, repo: SimRepo, job: SimCheckRun) {
  const api = `${ctx.api}/repos/${repo.fullName}`;
  const run = job.runId !== null ? repo.runs.get(job.runId) : undefined;
  return {
    id: job.id,
    run_id: job.runId ?? 0,
    workflow_name: run?.name ?? null,
    head_branch: run?.headBranch ?? null,
    run_url: `${api}/actions/runs/${job.runId}`,
    run_attempt: run?.runAttempt ?? 1,
    node_id: job.nodeId,
    head_sha: job.headSha,
    url: `${api}/actions/jobs/${job.id}`,
    html_url: `${ctx.web}/${repo.fullName}/actions/runs/${job.runId}/job/${job.id}`,
    status: job.status,
    conclusion: job.conclusion,
    created_at: restTime(job.createdAt),
    started_at: restTime(job.startedAt ?? job.createdAt),
    completed_at: restTime(job.completedAt),
    name: job.name,
    steps: job.steps.map((s) => ({
      name: s.name,
      status: s.status,
      conclusion: s.conclusion,
      number: s.number,
      started_at: restTime(s.startedAt),
      completed_at: restTime(s.completedAt),
    })),
    check_run_url: `${api}/check-runs/${job.id}`,
    labels: ["ubuntu-latest"],
    runner_id: job.status === "queued" ? null : 1,
    runner_name: job.status === "queued" ? null : "GitHub Actions 1",
    runner_group_id: job.status === "queued" ? null : 2,
    runner_group_name: job.status === "queued" ? null : "GitHub Actions",
  };
}

export function artifactShape(ctx: ShapeContext, repo: SimRepo, run: SimWorkflowRun, a: SimArtifact) {
  const api = `${ctx.api}/repos/${repo.fullName}`;
  return {
    id: a.id,
    node_id: a.nodeId,
    name: a.name,
    size_in_bytes: a.sizeInBytes,
    url: `${api}/actions/artifacts/${a.id}`,
    archive_download_url: `${api}/actions/artifacts/${a.id}/zip`,
    expired: false,
    created_at: restTime(a.createdAt),
    updated_at: restTime(a.createdAt),
    expires_at: restTime(a.createdAt + 90 * 24 * 3600 * 1000),
    workflow_run: {
      id: run.id,
      repository_id: repo.id,
      head_repository_id: repo.id,
      head_branch: run.headBranch,
      head_sha: run.headSha,
    },
  };
}
