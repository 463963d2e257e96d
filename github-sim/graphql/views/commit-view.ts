/**
 * GraphQL views of commits and their CI: Commit, StatusCheckRollup (check runs first, then
 * commit statuses, newest per name/context), CheckRun with steps and annotations, CheckSuite,
 * WorkflowRun, Workflow and StatusContext. Enum values are GitHub's upper-case names.
 */
import {
  checkRunState,
  effectiveStatuses,
  latestCheckRuns,
  rollupState,
  statusState,
} from "../../core/derived-state.js";
import type {
  SimCheckRun,
  SimCheckSuite,
  SimCommit,
  SimRepo,
  SimStatus,
  SimWorkflowRun,
} from "../../core/model.js";
import type { PageArgs } from "../../core/paginate.js";
import { connection } from "../connection.js";
import { type GqlContext, isoTime } from "../context.js";
import { actorView, type View } from "./actors.js";
import { repositoryView } from "./repository-view.js";

const upper = (value: string | null): string | null => (value === null ? null : value.toUpperCase());

function gitActor(ctx: GqlContext, commit: SimCommit): View {
  return {
    __typename: "GitActor",
    name: commit.authorName,
    email: commit.authorEmail,
    date: isoTime(commit.authoredAt),
    user: actorView(ctx, commit.author),
    avatarUrl: `https://avatars.githubusercontent.com/u/0?v=4`,
  };
}

export function commitView(ctx: GqlContext, repo: SimRepo, commit: SimCommit): View {
  const [headline = "", ...rest] = commit.message.split("\n");
  return {
    __typename: "Commit",
    id: commit.nodeId,
    oid: commit.sha,
    abbreviatedOid: commit.sha.slice(0, 7),
    message: commit.message,
    messageHeadline: headline,
    messageBody: rest.join("\n").trim(),
    committedDate: isoTime(commit.committedAt),
    authoredDate: isoTime(commit.authoredAt),
    pushedDate: isoTime(commit.committedAt),
    url: `${ctx.webBase}/${repo.fullName}/commit/${commit.sha}`,
    commitUrl: `${ctx.webBase}/${repo.fullName}/commit/${commit.sha}`,
    resourcePath: `/${repo.fullName}/commit/${commit.sha}`,
    author: gitActor(ctx, commit),
    committer: gitActor(ctx, commit),
    authors: (args: PageArgs) => connection([commit], args, (c) => gitActor(ctx, c)),
    tree: { __typename: "Tree", id: `T_${commit.treeSha}`, oid: commit.treeSha },
    parents: (args: PageArgs) =>
      connection(
        commit.parents.map((sha) => repo.commits.get(sha)).filter((c): c is SimCommit => c !== undefined),
        args,
        (c) => commitView(ctx, repo, c),
      ),
    get statusCheckRollup() {
      return rollupView(ctx, repo, commit);
    },
    get status() {
      const statuses = effectiveStatuses(commit);
      if (statuses.length === 0) return null;
      const contexts = statuses.map((s) => statusContextView(ctx, repo, commit, s));
      return {
        __typename: "Status",
        id: `S_${commit.sha}`,
        state: rollupOf(statuses.map(statusState)),
        contexts,
        commit: null,
      };
    },
    checkSuites: (args: PageArgs) =>
      connection(
        commit.checkSuiteIds
          .map((id) => repo.checkSuites.get(id))
          .filter((s): s is SimCheckSuite => s !== undefined),
        args,
        (s) => checkSuiteView(ctx, repo, s),
      ),
    get repository() {
      return repositoryView(ctx, repo);
    },
  };
}

function rollupOf(states: readonly string[]): string {
  if (states.includes("FAILURE")) return "FAILURE";
  if (states.includes("ERROR")) return "ERROR";
  if (states.includes("PENDING")) return "PENDING";
  return "SUCCESS";
}

function countsByState(states: readonly string[]): { state: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const s of states) counts.set(s, (counts.get(s) ?? 0) + 1);
  return [...counts].map(([state, count]) => ({ state, count }));
}

export function rollupView(ctx: GqlContext, repo: SimRepo, commit: SimCommit): View | null {
  const state = rollupState(repo, commit);
  if (state === null) return null;
  const checks = latestCheckRuns(repo, commit);
  const statuses = effectiveStatuses(commit);
  const items: (SimCheckRun | SimStatus)[] = [...checks, ...statuses];
  return {
    __typename: "StatusCheckRollup",
    id: `SCR_${commit.sha}`,
    state,
    commit: null,
    contexts: (args: PageArgs) =>
      connection(
        items,
        args,
        (item) =>
          "context" in item ? statusContextView(ctx, repo, commit, item) : checkRunView(ctx, repo, item),
        {
          checkRunCount: checks.length,
          checkRunCountsByState: countsByState(
            checks.map((c) =>
              c.status === "completed" ? (upper(c.conclusion) ?? "") : (upper(c.status) ?? ""),
            ),
          ),
          statusContextCount: statuses.length,
          statusContextCountsByState: countsByState(statuses.map(statusState)),
        },
      ),
  };
}

export function checkRunUrl(ctx: GqlContext, repo: SimRepo, run: SimCheckRun): string {
  return run.runId !== null
    ? `${ctx.webBase}/${repo.fullName}/actions/runs/${run.runId}/job/${run.id}`
    : `${ctx.webBase}/${repo.fullName}/runs/${run.id}`;
}

export function checkRunView(ctx: GqlContext, repo: SimRepo, run: SimCheckRun): View {
  const suite = repo.checkSuites.get(run.suiteId);
  return {
    __typename: "CheckRun",
    id: run.nodeId,
    databaseId: run.id,
    name: run.name,
    status: upper(run.status),
    conclusion: upper(run.conclusion),
    startedAt: isoTime(run.startedAt),
    completedAt: isoTime(run.completedAt),
    detailsUrl: run.detailsUrl ?? checkRunUrl(ctx, repo, run),
    url: checkRunUrl(ctx, repo, run),
    permalink: checkRunUrl(ctx, repo, run),
    resourcePath: `/${repo.fullName}/runs/${run.id}`,
    title: run.title,
    summary: run.summary,
    text: null,
    isRequired: () => run.isRequired,
    checkSuite: suite ? checkSuiteView(ctx, repo, suite) : null,
    annotations: (args: PageArgs) =>
      connection(run.annotations, args, (a) => ({
        __typename: "CheckAnnotation",
        path: a.path,
        message: a.message,
        title: a.title,
        annotationLevel: a.level.toUpperCase(),
        location: { start: { line: a.startLine, column: null }, end: { line: a.endLine, column: null } },
        blobUrl: `${ctx.webBase}/${repo.fullName}/blob/${run.headSha}/${a.path}`,
        rawDetails: null,
      })),
    steps: (args: PageArgs) =>
      connection(run.steps, args, (s) => ({
        __typename: "CheckStep",
        name: s.name,
        number: s.number,
        status: upper(s.status),
        conclusion: upper(s.conclusion),
        startedAt: isoTime(s.startedAt),
        completedAt: isoTime(s.completedAt),
        externalId: null,
        secondsToCompletion:
          s.startedAt !== null && s.completedAt !== null
            ? Math.round((s.completedAt - s.startedAt) / 1000)
            : null,
      })),
    state: checkRunState(run),
    get repository() {
      return repositoryView(ctx, repo);
    },
  };
}

export function checkSuiteView(ctx: GqlContext, repo: SimRepo, suite: SimCheckSuite): View {
  const runs = [...repo.checkRuns.values()].filter((r) => r.suiteId === suite.id);
  const workflowRun = suite.runId !== null ? repo.runs.get(suite.runId) : undefined;
  return {
    __typename: "CheckSuite",
    id: suite.nodeId,
    databaseId: suite.id,
    app: {
      __typename: "App",
      id: "A_github_actions",
      databaseId: 15368,
      name: "GitHub Actions",
      slug: suite.appSlug,
    },
    status: upper(
      workflowRun?.status ?? (runs.every((r) => r.status === "completed") ? "completed" : "in_progress"),
    ),
    conclusion: upper(workflowRun?.conclusion ?? null),
    createdAt: isoTime(suite.createdAt),
    updatedAt: isoTime(suite.updatedAt),
    branch: suite.headBranch ? { __typename: "Ref", name: suite.headBranch, prefix: "refs/heads/" } : null,
    workflowRun: workflowRun ? workflowRunView(ctx, repo, workflowRun) : null,
    checkRuns: (args: PageArgs) => connection(runs, args, (r) => checkRunView(ctx, repo, r)),
    get commit() {
      const commit = repo.commits.get(suite.headSha);
      return commit ? commitView(ctx, repo, commit) : null;
    },
    url: `${ctx.webBase}/${repo.fullName}/commit/${suite.headSha}/checks`,
  };
}

export function workflowRunView(ctx: GqlContext, repo: SimRepo, run: SimWorkflowRun): View {
  const workflow = repo.workflows.get(run.workflowId);
  return {
    __typename: "WorkflowRun",
    id: run.nodeId,
    databaseId: run.id,
    runNumber: run.runNumber,
    event: run.event,
    createdAt: isoTime(run.createdAt),
    updatedAt: isoTime(run.updatedAt),
    url: `${ctx.webBase}/${repo.fullName}/actions/runs/${run.id}`,
    resourcePath: `/${repo.fullName}/actions/runs/${run.id}`,
    workflow: workflow
      ? {
          __typename: "Workflow",
          id: workflow.nodeId,
          databaseId: workflow.id,
          name: workflow.name,
          resourcePath: `/${repo.fullName}/actions/workflows/${workflow.path.split("/").pop()}`,
          url: `${ctx.webBase}/${repo.fullName}/actions/workflows/${workflow.path.split("/").pop()}`,
          state: "ACTIVE",
          createdAt: isoTime(workflow.createdAt),
          updatedAt: isoTime(workflow.createdAt),
        }
      : null,
  };
}

export function statusContextView(
  ctx: GqlContext,
  repo: SimRepo,
  commit: SimCommit,
  status: SimStatus,
): View {
  return {
    __typename: "StatusContext",
    id: status.nodeId,
    context: status.context,
    state: status.state.toUpperCase(),
    description: status.description,
    targetUrl: status.targetUrl,
    createdAt: isoTime(status.createdAt),
    creator: actorView(ctx, status.creator),
    avatarUrl: "https://avatars.githubusercontent.com/u/0?v=4",
    isRequired: () => false,
    get commit() {
      return commitView(ctx, repo, commit);
    },
  };
}
