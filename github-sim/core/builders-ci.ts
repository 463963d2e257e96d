/**
 * Constructors for CI: commit statuses, workflow runs with their check suite and one check run
 * per job (a job's id is its check run's id, as on GitHub), and the roll-up of job states into
 * the run's status and conclusion. Like builders.ts they record no change; actions do.
 */

import { requireCommit } from "./builders.js";
import { makeNodeId } from "./ids.js";
import type {
  CheckConclusion,
  CheckStatus,
  SimAnnotation,
  SimCheckRun,
  SimCheckSuite,
  SimRepo,
  SimStatus,
  SimStep,
  SimWorkflowRun,
  StatusState,
} from "./model.js";
import type { World } from "./world.js";
import { WorldError } from "./world-error.js";

export function buildStatus(
  world: World,
  repo: SimRepo,
  sha: string,
  input: {
    context: string;
    state: StatusState;
    description?: string | null | undefined;
    targetUrl?: string | null | undefined;
    creator?: string | undefined;
    at: number;
  },
): SimStatus {
  const commit = requireCommit(repo, sha);
  const id = world.nextId("status");
  const status: SimStatus = {
    id,
    nodeId: makeNodeId("StatusContext", `status:${id}`),
    context: input.context,
    state: input.state,
    description: input.description ?? null,
    targetUrl: input.targetUrl ?? null,
    creator: input.creator ?? repo.owner,
    createdAt: input.at,
    updatedAt: input.at,
  };
  commit.statuses.push(status);
  return status;
}

export interface StepInput {
  readonly name: string;
  readonly conclusion?: CheckConclusion | undefined;
  readonly log?: string | undefined;
}

export interface JobInput {
  readonly id?: number | undefined;
  readonly name: string;
  readonly status: CheckStatus;
  readonly conclusion: CheckConclusion | null;
  readonly steps?: readonly StepInput[] | undefined;
  readonly annotations?: readonly SimAnnotation[] | undefined;
  readonly title?: string | undefined;
  readonly summary?: string | undefined;
  readonly startedAt: number | null;
  readonly completedAt: number | null;
}

export interface RunInput {
  readonly id?: number | undefined;
  readonly workflowId: number;
  readonly headBranch: string;
  readonly headSha: string;
  readonly event?: string | undefined;
  readonly displayTitle?: string | undefined;
  readonly actor?: string | undefined;
  readonly jobs: readonly JobInput[];
  readonly artifacts?: readonly { name: string; sizeInBytes?: number | undefined }[] | undefined;
  readonly at: number;
}

/** A workflow run with its check suite and one check run per job. */
export function buildWorkflowRun(world: World, repo: SimRepo, input: RunInput): SimWorkflowRun {
  const workflow = repo.workflows.get(input.workflowId);
  if (!workflow)
    throw new WorldError("NOT_FOUND", `unknown workflow ${input.workflowId} in ${repo.fullName}`);
  const commit = requireCommit(repo, input.headSha);
  const id = input.id !== undefined ? world.reserveId("run", input.id) : world.nextId("run");
  const suiteId = buildCheckSuite(world, repo, {
    headSha: input.headSha,
    headBranch: input.headBranch,
    appSlug: "github-actions",
    runId: id,
    at: input.at,
  }).id;
  const runNumber = [...repo.runs.values()].filter((r) => r.workflowId === input.workflowId).length + 1;
  const run: SimWorkflowRun = {
    id,
    nodeId: makeNodeId("WorkflowRun", `run:${id}`),
    workflowId: input.workflowId,
    name: workflow.name,
    displayTitle: input.displayTitle ?? commit.message.split("\n")[0] ?? "",
    runNumber,
    runAttempt: 1,
    event: input.event ?? "pull_request",
    status: "queued",
    conclusion: null,
    headBranch: input.headBranch,
    headSha: input.headSha,
    suiteId,
    jobIds: [],
    artifacts: (input.artifacts ?? []).map((a) => {
      const artifactId = world.nextId("artifact");
      return {
        id: artifactId,
        nodeId: makeNodeId("Artifact", `artifact:${artifactId}`),
        name: a.name,
        sizeInBytes: a.sizeInBytes ?? 1024,
        createdAt: input.at,
      };
    }),
    actor: input.actor ?? repo.owner,
    createdAt: input.at,
    runStartedAt: input.at,
    updatedAt: input.at,
    version: 0,
  };
  repo.runs.set(id, run);
  for (const job of input.jobs) {
    const checkRun = buildCheckRun(world, repo, {
      ...job,
      headSha: input.headSha,
      suiteId,
      runId: id,
      appSlug: "github-actions",
      at: input.at,
    });
    run.jobIds.push(checkRun.id);
  }
  aggregateRun(repo, run);
  const completed = run.jobIds
    .map((j) => repo.checkRuns.get(j)?.completedAt ?? null)
    .filter((t): t is number => t !== null);
  run.updatedAt = Math.max(run.createdAt, ...completed);
  return run;
}

export function buildCheckSuite(
  world: World,
  repo: SimRepo,
  input: { headSha: string; headBranch: string | null; appSlug: string; runId: number | null; at: number },
): SimCheckSuite {
  const commit = requireCommit(repo, input.headSha);
  const id = world.nextId("checkSuite");
  const suite: SimCheckSuite = {
    id,
    nodeId: makeNodeId("CheckSuite", `suite:${id}`),
    headSha: input.headSha,
    headBranch: input.headBranch,
    appSlug: input.appSlug,
    runId: input.runId,
    createdAt: input.at,
    updatedAt: input.at,
  };
  repo.checkSuites.set(id, suite);
  commit.checkSuiteIds.push(id);
  return suite;
}

export function buildCheckRun(
  world: World,
  repo: SimRepo,
  input: JobInput & {
    headSha: string;
    suiteId: number;
    runId: number | null;
    appSlug: string;
    detailsUrl?: string | undefined;
    at: number;
  },
): SimCheckRun {
  const commit = requireCommit(repo, input.headSha);
  const id = input.id !== undefined ? world.reserveId("checkRun", input.id) : world.nextId("checkRun");
  const stepInputs = input.steps ?? [{ name: "Run" }];
  const steps = stepInputs.map((s, i) => stepFor(s, i + 1, input, i === stepInputs.length - 1));
  const checkRun: SimCheckRun = {
    id,
    nodeId: makeNodeId("CheckRun", `check-run:${id}`),
    name: input.name,
    headSha: input.headSha,
    status: input.status,
    conclusion: input.status === "completed" ? (input.conclusion ?? "success") : null,
    createdAt: input.at,
    startedAt: input.startedAt,
    completedAt: input.status === "completed" ? (input.completedAt ?? input.at) : null,
    suiteId: input.suiteId,
    runId: input.runId,
    steps,
    annotations: [...(input.annotations ?? [])],
    title: input.title ?? null,
    summary: input.summary ?? null,
    detailsUrl: input.detailsUrl ?? null,
    appSlug: input.appSlug,
    isRequired: false,
    updatedAt: input.at,
    version: 0,
  };
  repo.checkRuns.set(id, checkRun);
  commit.checkRunIds.push(id);
  world.registerNode(checkRun.nodeId, { type: "CheckRun", repo: repo.fullName, id });
  return checkRun;
}

/** Steps mirror their job; when a failed job names no failing step, its last step failed. */
export function stepFor(step: StepInput, number: number, job: JobInput, isLast: boolean): SimStep {
  const done = job.status === "completed";
  const jobConclusion = job.conclusion ?? "success";
  const fallback: CheckConclusion = FAILING.has(jobConclusion) && !isLast ? "success" : jobConclusion;
  return {
    number,
    name: step.name,
    status: job.status,
    conclusion: done ? (step.conclusion ?? fallback) : null,
    startedAt: job.startedAt,
    completedAt: done ? job.completedAt : null,
    log: step.log ?? `${step.name}\n`,
  };
}

const FAILING: ReadonlySet<string> = new Set([
  "failure",
  "timed_out",
  "cancelled",
  "action_required",
  "startup_failure",
]);

/** A workflow run's status and conclusion follow its jobs, as on GitHub. */
export function aggregateRun(repo: SimRepo, run: SimWorkflowRun): void {
  const jobs = run.jobIds.map((id) => repo.checkRuns.get(id)).filter((j) => j !== undefined);
  if (jobs.length > 0 && jobs.every((j) => j.status === "completed")) {
    run.status = "completed";
    const failed = jobs.find((j) => j.conclusion && FAILING.has(j.conclusion));
    run.conclusion = failed?.conclusion ?? "success";
  } else if (jobs.some((j) => j.status !== "queued")) {
    run.status = "in_progress";
    run.conclusion = null;
  } else {
    run.status = "queued";
    run.conclusion = null;
  }
  const started = jobs.map((j) => j.startedAt).filter((t): t is number => t !== null);
  if (started.length > 0) run.runStartedAt = Math.min(...started);
}
