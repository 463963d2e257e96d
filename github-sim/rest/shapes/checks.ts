/**
 * REST check runs, check suites, annotations and commit statuses (single and combined).
 */
import { combinedStatus, effectiveStatuses } from "../../core/derived-state.js";
import type { SimCheckRun, SimCheckSuite, SimCommit, SimRepo, SimStatus } from "../../core/model.js";
import { restTime, type ShapeContext } from "./context.js";
import { minimalRepo } from "./repos.js";
import { simpleUser } from "./users.js";

function actionsApp(ctx: ShapeContext) {
  return {
    id: 15368,
    slug: "github-actions",
    node_id: "MDM6QXBwMTUzNjg=",
    owner: simpleUser(ctx, ctx.world.viewer),
    name: "GitHub Actions",
    description: "Automate your workflow from idea to production",
    external_url: "https://help.github.com/en/actions",
    html_url: `${ctx.web}/apps/github-actions`,
    created_at: "2018-07-30T09:30:17Z",
    updated_at: "2024-04-10T20:33:16Z",
    permissions: {
      actions: "write",
      checks: "write",
      contents: "write",
      metadata: "read",
      pull_requests: "write",
      statuses: "write",
    },
    events: ["check_run", "check_suite", "pull_request", "push", "workflow_dispatch"],
  };
}

/** The app a check run or suite belongs to: GitHub Actions, or another app by its slug (as GitHub names it). */
function appOf(ctx: ShapeContext, slug: string) {
  if (slug === "github-actions") return actionsApp(ctx);
  return {
    ...actionsApp(ctx),
    id: 100_000 + [...slug].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 900_000, 0),
    slug,
    node_id: `A_${slug}`,
    name: slug,
    description: null,
    external_url: `${ctx.web}/apps/${slug}`,
    html_url: `${ctx.web}/apps/${slug}`,
  };
}

function pullRefs(ctx: ShapeContext, repo: SimRepo, sha: string) {
  const repoRef = { id: repo.id, url: `${ctx.api}/repos/${repo.fullName}`, name: repo.name };
  return [...repo.pulls.values()]
    .filter((pr) => pr.state === "open" && pr.headSha === sha)
    .map((pr) => ({
      url: `${ctx.api}/repos/${repo.fullName}/pulls/${pr.number}`,
      id: pr.id,
      number: pr.number,
      head: { ref: pr.headRef, sha: pr.headSha, repo: repoRef },
      base: { ref: pr.baseRef, sha: pr.baseSha, repo: repoRef },
    }));
}

export function checkRunHtmlUrl(ctx: ShapeContext, repo: SimRepo, run: SimCheckRun): string {
  return run.runId !== null
    ? `${ctx.web}/${repo.fullName}/actions/runs/${run.runId}/job/${run.id}`
    : `${ctx.web}/${repo.fullName}/runs/${run.id}`;
}

export function checkRunShape(ctx: ShapeContext, repo: SimRepo, run: SimCheckRun) {
  const url = `${ctx.api}/repos/${repo.fullName}/check-runs/${run.id}`;
  const html = checkRunHtmlUrl(ctx, repo, run);
  return {
    id: run.id,
    name: run.name,
    node_id: run.nodeId,
    head_sha: run.headSha,
    external_id: run.runId !== null ? `ext-${run.id}` : null,
    url,
    html_url: html,
    details_url: run.detailsUrl ?? html,
    status: run.status,
    conclusion: run.conclusion,
    started_at: restTime(run.startedAt),
    completed_at: restTime(run.completedAt),
    output: {
      title: run.title,
      summary: run.summary,
      text: null,
      annotations_count: run.annotations.length,
      annotations_url: `${url}/annotations`,
    },
    check_suite: { id: run.suiteId },
    app: appOf(ctx, run.appSlug),
    pull_requests: pullRefs(ctx, repo, run.headSha),
  };
}

export function annotationShape(ctx: ShapeContext, repo: SimRepo, run: SimCheckRun, index: number) {
  const a = run.annotations[index] as SimCheckRun["annotations"][number];
  return {
    path: a.path,
    blob_href: `${ctx.web}/${repo.fullName}/blob/${run.headSha}/${a.path}`,
    start_line: a.startLine,
    end_line: a.endLine,
    start_column: null,
    end_column: null,
    annotation_level: a.level,
    title: a.title,
    message: a.message,
    raw_details: null,
  };
}

export function checkSuiteShape(ctx: ShapeContext, repo: SimRepo, suite: SimCheckSuite) {
  const run = suite.runId !== null ? repo.runs.get(suite.runId) : undefined;
  const runs = [...repo.checkRuns.values()].filter((r) => r.suiteId === suite.id);
  const commit = repo.commits.get(suite.headSha);
  return {
    id: suite.id,
    node_id: suite.nodeId,
    head_branch: suite.headBranch,
    head_sha: suite.headSha,
    status: run?.status ?? (runs.every((r) => r.status === "completed") ? "completed" : "in_progress"),
    conclusion: run?.conclusion ?? null,
    url: `${ctx.api}/repos/${repo.fullName}/check-suites/${suite.id}`,
    before: commit?.parents[0] ?? null,
    after: suite.headSha,
    pull_requests: pullRefs(ctx, repo, suite.headSha),
    app: appOf(ctx, suite.appSlug),
    repository: minimalRepo(ctx, repo),
    created_at: restTime(suite.createdAt),
    updated_at: restTime(suite.updatedAt),
    head_commit: commit ? simpleCommit(commit) : null,
    latest_check_runs_count: runs.length,
    check_runs_url: `${ctx.api}/repos/${repo.fullName}/check-suites/${suite.id}/check-runs`,
    rerequestable: true,
    runs_rerequestable: true,
  };
}

export function simpleCommit(commit: SimCommit) {
  const person = { name: commit.authorName, email: commit.authorEmail };
  return {
    id: commit.sha,
    tree_id: commit.treeSha,
    message: commit.message,
    timestamp: restTime(commit.committedAt),
    author: person,
    committer: person,
  };
}

export function statusShape(ctx: ShapeContext, repo: SimRepo, commit: SimCommit, s: SimStatus) {
  return {
    url: `${ctx.api}/repos/${repo.fullName}/statuses/${commit.sha}`,
    avatar_url: "https://avatars.githubusercontent.com/u/0?v=4",
    id: s.id,
    node_id: s.nodeId,
    state: s.state,
    description: s.description,
    target_url: s.targetUrl,
    context: s.context,
    created_at: restTime(s.createdAt),
    updated_at: restTime(s.updatedAt),
    creator: simpleUser(ctx, s.creator),
  };
}

export function combinedStatusShape(ctx: ShapeContext, repo: SimRepo, commit: SimCommit) {
  const statuses = effectiveStatuses(commit).map((s) => {
    const { creator: _creator, ...rest } = statusShape(ctx, repo, commit, s);
    return { ...rest, required: false };
  });
  return {
    state: combinedStatus(commit),
    statuses,
    sha: commit.sha,
    total_count: statuses.length,
    repository: minimalRepo(ctx, repo),
    commit_url: `${ctx.api}/repos/${repo.fullName}/commits/${commit.sha}`,
    url: `${ctx.api}/repos/${repo.fullName}/commits/${commit.sha}/status`,
  };
}
