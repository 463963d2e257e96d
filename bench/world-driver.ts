/**
 * Plays everything in the world that is not an agent's gh command: git pushes (which cost no API
 * budget) with the CI they start, the reviewer who answers after CI goes green, and the initial
 * state of sessions that start mid-life (an open PR, CI running or done, changes requested). It
 * writes through the simulator's event API, so every change lands in the change log that
 * staleness is measured against. All durations are simulated and scaled to wall time here.
 */
import type { RunningSimulator, Scenario, SimEvent } from "../github-sim/index.js";
import { type Fates, phaseLength } from "./core/fates.js";
import type { Profile } from "./core/profile-schema.js";
import type { Rng } from "./core/rng.js";

export const BENCH_OWNER = "acme";
export const BENCH_REPO = "widgets";
export const BENCH_WORKFLOW_ID = 42;

/** The world every step starts from: one repository, the CI workflow, `issues` open issues (#1..). */
export function benchScenario(issues: number): Scenario {
  return {
    name: "bench",
    viewer: { login: "octocat", id: 1, name: "The Octocat" },
    users: [
      { login: "hubot", id: 2, name: "Hubot" },
      { login: "monalisa", id: 3, name: "Mona Lisa" },
    ],
    repos: [
      {
        owner: BENCH_OWNER,
        name: BENCH_REPO,
        defaultBranch: "main",
        requireReviews: true,
        workflows: [{ id: BENCH_WORKFLOW_ID, name: "CI", path: ".github/workflows/ci.yml" }],
        issues: Array.from({ length: issues }, (_, i) => ({
          number: i + 1,
          title: `Task ${i + 1}`,
          body: `Work item ${i + 1} for an agent session.\n\nAcceptance: tests pass, one review.`,
        })),
      },
    ],
  };
}

export interface PushResult {
  readonly sha: string;
  /** Simulated ms until the CI run completes. */
  readonly ciSimMs: number;
  readonly failed: boolean;
}

export interface WorldDriverOptions {
  readonly sim: RunningSimulator;
  readonly world: Profile["world"];
  readonly scale: number;
}

export class WorldDriver {
  readonly #o: WorldDriverOptions;
  readonly #timers = new Set<NodeJS.Timeout>();
  #closed = false;

  constructor(options: WorldDriverOptions) {
    this.#o = options;
  }

  get repo(): string {
    return `${BENCH_OWNER}/${BENCH_REPO}`;
  }

  /**
   * The CI of one commit. A moving run started `elapsedSimMs` ago: each job's remaining wait and
   * duration are what is left of them now, and a job already finished completes at once (a
   * zero-length motion), so every timestamp it carries is a real instant of the run.
   */
  #ciSpec(failed: boolean, rng: Rng, moving: boolean, elapsedSimMs = 0, createdAgoSimMs = elapsedSimMs) {
    const jobs = this.#o.world.ciJobs;
    const failing = failed ? rng.int(0, jobs.length - 1) : -1;
    const elapsedS = elapsedSimMs / 1000;
    return {
      workflowId: BENCH_WORKFLOW_ID,
      ...(createdAgoSimMs > 0 ? { createdAgoS: createdAgoSimMs / 1000 / this.#o.scale } : {}),
      jobs: jobs.map((job, i) => {
        const startAfterS = Math.max(0, job.startAfterS - elapsedS);
        const durationS = Math.max(0, job.durationS - Math.max(0, elapsedS - job.startAfterS));
        return {
          name: job.name,
          conclusion: i === failing ? ("failure" as const) : ("success" as const),
          ...(moving
            ? { startAfterS: startAfterS / this.#o.scale, durationS: durationS / this.#o.scale }
            : {}),
        };
      }),
    };
  }

  #ciSimMs(): number {
    return Math.max(...this.#o.world.ciJobs.map((j) => (j.startAfterS + j.durationS) * 1000));
  }

  #inject(event: SimEvent): { number?: number; sha?: string } {
    return this.#o.sim.inject(event);
  }

  /** `git push` of a new commit on `branch`; starts CI that fails with the profile's odds. */
  push(branch: string, attempt: number, fates: Fates): PushResult {
    const failed =
      attempt === 0
        ? fates.stream("push-first").chance(this.#o.world.ciFailureRate)
        : fates.stream("push-after-fix").chance(this.#o.world.ciFailureRateAfterFix);
    const result = this.#inject({
      type: "push",
      branch,
      message: attempt === 0 ? "Implement the task" : `Fix round ${attempt}`,
      ci: this.#ciSpec(failed, fates.stream("failing-job"), true),
    });
    return { sha: result.sha ?? "", ciSimMs: this.#ciSimMs(), failed };
  }

  /**
   * An already-open PR for a session that starts mid-life; returns its number. With `ciRunning`,
   * its CI run started `ciElapsedSimMs` ago (0 = it starts now). `ciCreatedAgoSimMs` (default
   * `ciElapsedSimMs`) dates the run's record: a finished run was created before any running one,
   * so the runs list is ordered as a world that had been running would order it.
   */
  openPull(input: {
    branch: string;
    issue: number;
    ciRunning: boolean;
    ciFailed: boolean;
    ciElapsedSimMs?: number;
    ciCreatedAgoSimMs?: number;
    rng: Rng;
  }): number {
    const result = this.#inject({
      type: "open_pr",
      title: `Fix #${input.issue}`,
      body: `Closes #${input.issue}.`,
      head: input.branch,
      // A PR with changes: its diff (`gh pr diff`) has files, so the bench can judge it.
      files: [{ path: `src/module-${input.issue}.ts`, additions: 12, deletions: 3 }],
      ci: this.#ciSpec(
        input.ciFailed,
        input.rng,
        input.ciRunning,
        input.ciElapsedSimMs ?? 0,
        input.ciCreatedAgoSimMs ?? input.ciElapsedSimMs ?? 0,
      ),
    });
    if (result.number === undefined) throw new Error("world: open_pr returned no number");
    return result.number;
  }

  /** The reviewer's verdict, now. */
  review(pr: number, approve: boolean, comments: number): void {
    if (this.#closed) return;
    this.#inject({
      type: "review",
      pr,
      author: "hubot",
      state: approve ? "APPROVED" : "CHANGES_REQUESTED",
      body: approve ? "Looks good." : "A few things to fix.",
      ...(approve || comments === 0
        ? {}
        : {
            comments: Array.from({ length: comments }, (_, i) => ({
              path: `src/module-${pr}.ts`,
              line: 10 + i * 7,
              body: `Please handle case ${i + 1} here.`,
            })),
          }),
    });
  }

  /** The reviewer answers `delaySimMs` from now (wall time = delay / scale). */
  scheduleReview(pr: number, delaySimMs: number, approve: boolean, comments: number): void {
    if (this.#closed) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      try {
        this.review(pr, approve, comments);
      } catch {
        // The PR may have been merged or closed meanwhile: a reviewer arriving late changes nothing.
      }
    }, delaySimMs / this.#o.scale);
    this.#timers.add(timer);
  }

  /**
   * Review odds, comment count and delay for review round `round` (0 = first; "mid-life": a
   * session's first review when it was born part-way, at `midLifeApprove`, the steady state's
   * mix of rounds); `elapsed` of the delay already behind a reviewer found part-way at t = 0
   * (core/fates.ts `phaseLength`).
   */
  reviewVerdict(
    round: number | { readonly midLifeApprove: number },
    fates: Fates,
    elapsed = 0,
  ): { approve: boolean; comments: number; delaySimMs: number } {
    const w = this.#o.world;
    const approve =
      typeof round !== "number"
        ? fates.stream("review-mid-life").chance(round.midLifeApprove)
        : round === 0
          ? fates.stream("review-first").chance(w.approveRate)
          : fates.stream("review-after-fix").chance(w.approveRateAfterFix);
    return {
      approve,
      comments: approve ? 0 : fates.stream("review-comments").int(w.reviewComments.min, w.reviewComments.max),
      delaySimMs: phaseLength(fates.stream("review-delay"), w.reviewDelayS, elapsed) * 1000,
    };
  }

  get ciSimMs(): number {
    return this.#ciSimMs();
  }

  close(): void {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}
