/**
 * Starts the CI a scenario describes for one commit: a workflow run whose jobs are either static
 * (a fixed state with deterministic timestamps) or moving (queued, then in_progress after
 * `startAfterS`, then completed with their conclusion after `durationS` more), the motion being
 * scheduled on the engine against the scenario clock.
 */

import { startWorkflowRun, updateCheckRun } from "./actions-ci.js";
import { buildCheckRun, buildCheckSuite, buildWorkflowRun, type JobInput } from "./builders-ci.js";
import type { SimRepo, SimWorkflowRun } from "./model.js";
import type { ScenarioEngine } from "./scenario-engine.js";
import type { CheckSpec, CiSpec, JobSpec } from "./scenario-schema.js";
import type { World } from "./world.js";
import { WorldError } from "./world-error.js";

export interface StartCiInput {
  readonly sha: string;
  readonly branch: string;
  readonly spec: CiSpec;
  /** Base instant: static jobs start a minute after it; moving jobs are scheduled from it. */
  readonly at: number;
  /** Record the change (events) or lay it out silently (scenario load). */
  readonly record: boolean;
}

function isMoving(job: JobSpec | CheckSpec): boolean {
  return job.startAfterS !== undefined || job.durationS !== undefined;
}

function staticJob(job: JobSpec | CheckSpec, index: number, at: number): JobInput {
  const status = job.status ?? "completed";
  const startedAt = status === "queued" ? null : at + 60_000;
  const completedAt = status === "completed" ? at + 60_000 + 30_000 * (index + 1) : null;
  return {
    id: job.id,
    name: job.name,
    status,
    conclusion: status === "completed" ? job.conclusion : null,
    steps: "steps" in job ? job.steps : undefined,
    annotations: ("annotations" in job ? job.annotations : undefined)?.map((a) => ({
      path: a.path,
      startLine: a.startLine,
      endLine: a.endLine ?? a.startLine,
      level: a.level,
      message: a.message,
      title: a.title ?? null,
    })),
    title: job.title,
    summary: job.summary,
    startedAt,
    completedAt,
  };
}

export function startCi(
  world: World,
  engine: ScenarioEngine,
  repo: SimRepo,
  input: StartCiInput,
): SimWorkflowRun {
  const workflowId = input.spec.workflowId ?? repo.workflows.keys().next().value;
  if (workflowId === undefined)
    throw new WorldError("UNPROCESSABLE", `${repo.fullName} has no workflow for CI`);
  const createdAt = input.at - (input.spec.createdAgoS ?? 0) * 1000;
  const jobs = input.spec.jobs.map((job, i) => {
    const base = staticJob(job, i, createdAt);
    return isMoving(job)
      ? { ...base, status: "queued" as const, conclusion: null, startedAt: null, completedAt: null }
      : base;
  });
  const runInput = {
    id: input.spec.runId,
    workflowId,
    headBranch: input.branch,
    headSha: input.sha,
    event: input.spec.event,
    artifacts: input.spec.artifacts,
    jobs,
  };
  const run = input.record
    ? startWorkflowRun(world, repo, runInput, createdAt)
    : buildWorkflowRun(world, repo, { ...runInput, at: createdAt });
  input.spec.jobs.forEach((job, i) => {
    if (!isMoving(job)) return;
    const id = run.jobIds[i];
    if (id === undefined) return;
    scheduleMotion(world, engine, repo, id, job, input.at);
  });
  return run;
}

function scheduleMotion(
  world: World,
  engine: ScenarioEngine,
  repo: SimRepo,
  id: number,
  spec: JobSpec | CheckSpec,
  base: number,
): void {
  const startAt = base + (spec.startAfterS ?? 0) * 1000;
  engine.schedule(startAt, `check ${id} in_progress`, () => {
    updateCheckRun(world, repo, id, { status: "in_progress" });
  });
  if (spec.durationS !== undefined) {
    engine.schedule(startAt + spec.durationS * 1000, `check ${id} completed`, () => {
      updateCheckRun(world, repo, id, { status: "completed", conclusion: spec.conclusion });
    });
  }
}

export interface StartChecksInput {
  readonly sha: string;
  readonly branch: string;
  readonly checks: readonly CheckSpec[];
  readonly at: number;
  readonly record: boolean;
}

/** Check runs of apps other than GitHub Actions: one suite per app, static or moving checks. */
export function startChecks(
  world: World,
  engine: ScenarioEngine,
  repo: SimRepo,
  input: StartChecksInput,
): void {
  const suites = new Map<string, number>();
  input.checks.forEach((spec, i) => {
    const app = spec.app ?? "checks-bot";
    let suiteId = suites.get(app);
    if (suiteId === undefined) {
      suiteId = buildCheckSuite(world, repo, {
        headSha: input.sha,
        headBranch: input.branch,
        appSlug: app,
        runId: null,
        at: input.at,
      }).id;
      suites.set(app, suiteId);
    }
    const base = staticJob(spec, i, input.at);
    const moving = isMoving(spec);
    const check = buildCheckRun(world, repo, {
      ...(moving
        ? { ...base, status: "queued" as const, conclusion: null, startedAt: null, completedAt: null }
        : base),
      steps: [],
      headSha: input.sha,
      suiteId,
      runId: null,
      appSlug: app,
      detailsUrl: spec.detailsUrl,
      at: input.at,
    });
    if (input.record) world.touch(repo, "check_run.created", { id: check.id }, check);
    if (moving) scheduleMotion(world, engine, repo, check.id, spec, input.at);
  });
}
