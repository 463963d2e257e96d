/**
 * CI changes: workflow runs start, check runs move queued → in_progress → completed (each move of
 * a job bumps its run's updated_at, as GitHub does), commit statuses are posted. Besides the check/status change itself, every open PR whose head is the
 * affected commit gets a `pull_request.checks` change entry (without bumping the PR's own
 * version: its REST representation does not include CI), so a benchmark can tell when a PR's
 * CI answer moved.
 */
import { aggregateRun, buildStatus, buildWorkflowRun, type RunInput } from "./builders-ci.js";
import type {
  CheckConclusion,
  CheckStatus,
  SimCheckRun,
  SimRepo,
  SimStatus,
  SimWorkflowRun,
  StatusState,
} from "./model.js";
import type { World } from "./world.js";
import { WorldError } from "./world-error.js";

function touchPullsAt(world: World, repo: SimRepo, sha: string): void {
  for (const pr of repo.pulls.values()) {
    if (pr.state === "open" && pr.headSha === sha)
      world.touch(repo, "pull_request.checks", { number: pr.number });
  }
}

/** A new run, recorded as a change now; `createdAt` (default now) backdates its record only. */
export function startWorkflowRun(
  world: World,
  repo: SimRepo,
  input: Omit<RunInput, "at">,
  createdAt: number = world.now(),
): SimWorkflowRun {
  const run = buildWorkflowRun(world, repo, { ...input, at: createdAt });
  world.touch(repo, "workflow_run.requested", { id: run.id }, run);
  for (const id of run.jobIds) {
    const job = repo.checkRuns.get(id);
    if (job) world.touch(repo, "check_run.created", { id }, job);
  }
  touchPullsAt(world, repo, run.headSha);
  return run;
}

export function requireCheckRun(repo: SimRepo, id: number): SimCheckRun {
  const run = repo.checkRuns.get(id);
  if (!run) throw new WorldError("NOT_FOUND", `Could not resolve to a CheckRun with the id of ${id}.`);
  return run;
}

/** Moves a check run (and its steps, and its workflow run) to `status`. */
export function updateCheckRun(
  world: World,
  repo: SimRepo,
  id: number,
  update: { status: CheckStatus; conclusion?: CheckConclusion | null | undefined },
): SimCheckRun {
  const check = requireCheckRun(repo, id);
  const at = world.now();
  check.status = update.status;
  if (update.status !== "queued" && check.startedAt === null) check.startedAt = at;
  if (update.status === "completed") {
    const conclusion = update.conclusion ?? "success";
    check.conclusion = conclusion;
    check.completedAt = at;
    const failing = conclusion !== "success" && conclusion !== "skipped" && conclusion !== "neutral";
    check.steps.forEach((step, i) => {
      step.status = "completed";
      step.startedAt ??= check.startedAt;
      step.completedAt = at;
      step.conclusion ??= failing && i < check.steps.length - 1 ? "success" : conclusion;
    });
  } else {
    check.conclusion = null;
    check.completedAt = null;
    for (const step of check.steps) {
      step.status = update.status;
      step.conclusion = null;
      step.completedAt = null;
      if (update.status === "in_progress") step.startedAt ??= at;
    }
  }
  world.touch(
    repo,
    `check_run.${update.status === "completed" ? "completed" : update.status}`,
    { id },
    check,
  );
  if (check.runId !== null) {
    const run = repo.runs.get(check.runId);
    if (run) {
      const before = `${run.status}/${run.conclusion}`;
      aggregateRun(repo, run);
      // As on GitHub, a run's updated_at follows its jobs: a job that starts or finishes moves the
      // run (and the runs list's ETag) even while the run's own status stays in_progress.
      const moved = `${run.status}/${run.conclusion}` !== before;
      world.touch(repo, moved ? `workflow_run.${run.status}` : "workflow_run.updated", { id: run.id }, run);
    }
  }
  touchPullsAt(world, repo, check.headSha);
  return check;
}

export function addCommitStatus(
  world: World,
  repo: SimRepo,
  sha: string,
  input: {
    context: string;
    state: StatusState;
    description?: string | null;
    targetUrl?: string | null;
    creator?: string;
  },
): SimStatus {
  const status = buildStatus(world, repo, sha, { ...input, at: world.now() });
  const commit = repo.commits.get(sha);
  if (commit) world.touch(repo, "status", { id: status.id, ref: sha }, commit);
  touchPullsAt(world, repo, sha);
  return status;
}
