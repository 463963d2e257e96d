/**
 * One live agent session of the `active` profile, from issue to merge: read the issue, work, push,
 * `gh pr create`, watch CI (`gh pr checks --watch`, or `gh run list` + `gh run watch`, or neither),
 * read the failure log and fix, wait for review while polling, fix requested changes, merge. In
 * every phase the profile's background commands run on their own cadence (agents' polling loops).
 * The agent learns outcomes only from its own gh answers (closed loop): a stale answer delays it.
 *
 * Randomness: `fates` (core/fates.ts) draws everything that shapes the workload (durations, CI
 * outcome, watch style, review verdict), one evenly spread stream per kind shared by the step's
 * sessions, so any window holds its share of failures, rejections and PR creates in every arm;
 * `jitter` only spaces background polls.
 */

import { setMaxListeners } from "node:events";
import type { Orchestrator, SessionChannel, SessionSpec } from "./arms/arm-types.js";
import type { Bindings } from "./core/capture-template.js";
import { midLifeOdds } from "./core/ceiling.js";
import { type Fates, phaseLength } from "./core/fates.js";
import { type AgentLoopCommand, type PhaseLoop, type Profile, rangeMean } from "./core/profile-schema.js";
import type { Rng } from "./core/rng.js";
import {
  apiPullComments,
  issueView,
  prChecks,
  prChecksWatch,
  prComment,
  prCreate,
  prDiff,
  prList,
  prMerge,
  prView,
  runListBranch,
  runViewLogFailed,
  runWatch,
} from "./replay/gh-commands.js";
import type { CommandOutcome, ReplayContext } from "./replay/replay-types.js";
import { isStepStopped, type StepClock } from "./step-clock.js";
import type { StepRecorder } from "./step-recorder.js";
import type { WorldDriver } from "./world-driver.js";

export type AgentPhase = "work" | "ci" | "review" | "fix";

export interface AgentStart {
  /** Where the session's life begins: "work" = a fresh issue; the others open a PR first. */
  readonly phase: AgentPhase;
  /**
   * How much of its first phase is already behind it, [0, 1). For "work", 0 = it starts by reading
   * the issue; for "ci", how far the CI run has got; for "review", how much of the reviewer's
   * delay has passed; for "fix", how much of the first fix is done.
   */
  readonly elapsed?: number | undefined;
}

export interface AgentDeps {
  readonly profile: Profile;
  readonly channel: SessionChannel;
  readonly orchestrator: Orchestrator;
  readonly world: WorldDriver;
  readonly clock: StepClock;
  readonly recorder: StepRecorder;
  readonly fates: Fates;
  readonly jitter: Rng;
  readonly signal: AbortSignal;
  /** AO's gh wrapper caches `gh issue view N` for 300 s (direct and proxy arms). */
  readonly wrapperCache: boolean;
}

export type AgentEnd = "merged" | "stopped";

const OWNER_REPO = (repo: string) => {
  const [owner, name] = repo.split("/");
  return { owner: owner ?? "", repo: name ?? "" };
};

/** A command's name for the scorecard: gh's subcommand and its shaping flags, no numbers. */
export function commandName(argv: readonly string[]): string {
  if (argv[0] === "api")
    return `api ${(argv[1] ?? "").replace(/^repos\/[^/]+\/[^/]+\//, "").replace(/\d+/g, "N")}`;
  const flags = argv.filter((a) =>
    ["--watch", "--comments", "--json", "--log-failed", "--branch"].includes(a),
  );
  return [...argv.slice(0, 2), ...flags].join(" ");
}

export class AgentSession {
  readonly #spec: SessionSpec;
  readonly #d: AgentDeps;
  readonly #agent: NonNullable<Profile["agents"]>;
  #pr: number | undefined;
  #issueViewedAt = Number.NEGATIVE_INFINITY;

  constructor(spec: SessionSpec, deps: AgentDeps) {
    const agent = deps.profile.agents;
    if (!agent) throw new Error("agent session: the profile has no agents");
    this.#spec = spec;
    this.#d = deps;
    this.#agent = agent;
  }

  get pr(): number | undefined {
    return this.#pr;
  }

  #bindings(): Bindings {
    return {
      ...OWNER_REPO(this.#d.world.repo),
      issue: this.#spec.issue,
      branch: this.#spec.branch,
      base: "main",
      ...(this.#pr !== undefined ? { pr: this.#pr } : {}),
    };
  }

  async #run<T>(
    argv: readonly string[],
    command: (ctx: ReplayContext) => Promise<CommandOutcome<T>>,
  ): Promise<CommandOutcome<T>> {
    if (this.#d.signal.aborted) throw new Error("stopped");
    this.#d.recorder.recordCommand(commandName(argv));
    const outcome = await this.#d.channel.run(argv, this.#bindings(), command);
    if (outcome.rateLimited && argv[0] !== "bg") {
      await this.#d.clock.sleep(this.#agent.rateLimitBackoffS * 1000, this.#d.signal);
    }
    return outcome;
  }

  #sleep(simMs: number): Promise<void> {
    return this.#d.clock.sleep(simMs, this.#d.signal);
  }

  async #loopCommand(command: AgentLoopCommand): Promise<void> {
    const pr = this.#pr;
    const n = String(pr ?? "");
    switch (command) {
      case "issue_view":
      case "issue_view_comments": {
        const comments = command === "issue_view_comments";
        if (!comments && this.#d.wrapperCache && this.#d.clock.simElapsedMs() - this.#issueViewedAt < 300_000)
          return;
        await this.#run(
          ["issue", "view", String(this.#spec.issue), ...(comments ? ["--comments"] : [])],
          (ctx) => issueView(ctx, comments),
        );
        if (!comments) this.#issueViewedAt = this.#d.clock.simElapsedMs();
        return;
      }
      case "pr_list":
        await this.#run(["pr", "list"], prList);
        return;
      case "run_list_branch":
        await this.#run(["run", "list", "--branch", this.#spec.branch], runListBranch);
        return;
      default:
        break;
    }
    if (pr === undefined) return;
    switch (command) {
      case "pr_view":
        await this.#run(["pr", "view", n], (ctx) => prView(ctx, "pr_view"));
        return;
      case "pr_view_comments":
        await this.#run(["pr", "view", n, "--comments"], (ctx) => prView(ctx, "pr_view_comments"));
        return;
      case "pr_view_json_checks":
        await this.#run(["pr", "view", n, "--json", "statusCheckRollup"], (ctx) =>
          prView(ctx, "pr_view_json_checks"),
        );
        return;
      case "pr_view_json_reviews":
        await this.#run(
          ["pr", "view", n, "--json", "reviews,comments,reviewDecision,mergeable,mergeStateStatus"],
          (ctx) => prView(ctx, "pr_view_json_reviews"),
        );
        return;
      case "pr_checks":
        await this.#run(["pr", "checks", n], prChecks);
        return;
      case "pr_diff":
        await this.#run(["pr", "diff", n], prDiff);
        return;
      case "api_pull_comments":
        await this.#run(["api", `repos/${this.#d.world.repo}/pulls/${n}/comments`], apiPullComments);
        return;
      default:
        return;
    }
  }

  /** Runs `body` while the phase's background loops poll; stops the loops when it settles. */
  async #phase<T>(phase: AgentPhase, body: () => Promise<T>): Promise<T> {
    const stop = new AbortController();
    setMaxListeners(0, stop.signal);
    const onAbort = () => stop.abort();
    this.#d.signal.addEventListener("abort", onAbort, { once: true });
    const loops = this.#agent.loops[phase].map((loop) => this.#background(loop, stop.signal));
    let result: T;
    try {
      result = await body();
    } finally {
      stop.abort();
      this.#d.signal.removeEventListener("abort", onAbort);
    }
    // A loop that failed for a reason other than stopping is a bench bug: fail the session loudly.
    const failed = (await Promise.allSettled(loops)).find(
      (r): r is PromiseRejectedResult => r.status === "rejected",
    );
    if (failed && !this.#d.signal.aborted) throw failed.reason;
    return result;
  }

  async #background(loop: PhaseLoop, signal: AbortSignal): Promise<void> {
    const every = loop.everyS * this.#agent.loopIntervalScale * 1000;
    const interval = () => every * this.#d.jitter.uniform(1 - loop.jitter, 1 + loop.jitter);
    try {
      await this.#d.clock.sleep(this.#d.jitter.uniform(0, every), signal);
      while (!signal.aborted) {
        await this.#loopCommand(loop.command);
        await this.#d.clock.sleep(interval(), signal);
      }
    } catch (error) {
      if (!isStepStopped(error) && !signal.aborted && !this.#d.signal.aborted) throw error;
    }
  }

  /** Sets up the world for a session that starts mid-life (its PR, CI, review), then lives until merged or stopped. */
  async live(start: AgentStart): Promise<AgentEnd> {
    const fate = this.#d.fates;
    try {
      let phase: AgentPhase = start.phase;
      let ciFailedKnown = false;
      const elapsed = start.elapsed ?? 0;
      // The share of the next fix still ahead: less than all of it only for a session born mid-fix.
      let fixShare = phase === "fix" ? 1 - elapsed : 1;
      if (phase === "work") {
        const comments = fate.stream("issue-view-comments").chance(this.#agent.issueViewCommentsRate);
        if (elapsed === 0) await this.#firstIssueView(comments);
        const workMs = phaseLength(fate.stream("work-length"), this.#agent.workS, elapsed) * 1000;
        await this.#phase("work", () => this.#sleep(workMs));
        phase = await this.#pushAndOpen();
      } else {
        this.#openMidLife(phase, elapsed);
        ciFailedKnown = phase === "fix" && this.#reviewsScheduled === 0;
      }
      for (;;) {
        if (phase === "ci") {
          const result = await this.#phase("ci", () => this.#watchCi());
          ciFailedKnown = result === "failed";
          phase = ciFailedKnown ? "fix" : "review";
        } else if (phase === "review") {
          const verdict = await this.#phase("review", () => this.#awaitReview());
          if (verdict === "approved") {
            const merge = await this.#run(
              ["pr", "merge", String(this.#pr), "--squash", "--delete-branch"],
              prMerge,
            );
            if (merge.ok) this.#d.recorder.recordMerge();
            return "merged";
          }
          ciFailedKnown = false;
          phase = "fix";
        } else {
          const fixMs = phaseLength(fate.stream("fix-length"), this.#agent.fixS, 1 - fixShare) * 1000;
          fixShare = 1;
          const replying =
            !ciFailedKnown && fate.stream("review-reply").chance(this.#agent.replyToReviewRate);
          const afterReview = !ciFailedKnown;
          await this.#phase("fix", async () => {
            if (afterReview) {
              await this.#run(["pr", "view", String(this.#pr), "--comments"], (ctx) =>
                prView(ctx, "pr_view_comments"),
              );
            }
            await this.#sleep(fixMs);
          });
          phase = await this.#pushAndOpen();
          if (replying)
            await this.#run(["pr", "comment", String(this.#pr), "--body", "Fixed."], (ctx) =>
              prComment(ctx, "Fixed."),
            );
        }
      }
    } catch (error) {
      if (isStepStopped(error) || this.#d.signal.aborted) return "stopped";
      throw error;
    }
  }

  #pushes = 0;
  #reviewsScheduled = 0;
  #reviewsSeen = 0;

  /**
   * A session born mid-life: its PR is already open, CI running (ci), green (review) or reviewed
   * (fix), `elapsed` of that phase behind it. The CI run started that long ago and the reviewer is
   * that far into his delay, so a short window sees merges and CI outcomes at the steady-state rate
   * instead of waiting out whole phases first.
   */
  #openMidLife(phase: AgentPhase, elapsed: number): void {
    const fate = this.#d.fates;
    const odds = midLifeOdds(this.#d.profile);
    const ciFailed =
      phase === "fix"
        ? fate.stream("mid-life-fix-cause").chance(0.5)
        : phase === "ci" && fate.stream("push-mid-life").chance(odds.ciFailure);
    this.#pr = this.#d.world.openPull({
      branch: this.#spec.branch,
      issue: this.#spec.issue,
      ciRunning: phase === "ci",
      ciFailed,
      ciElapsedSimMs: phase === "ci" ? elapsed * this.#d.world.ciSimMs : 0,
      ciCreatedAgoSimMs: this.#midLifeRunAgeSimMs(phase, elapsed, ciFailed),
      rng: fate.stream("failing-job"),
    });
    this.#pushes = 1;
    void this.#d.orchestrator.prCreated(this.#spec, this.#pr);
    const midLife = { midLifeApprove: odds.approve };
    if (phase === "ci" && !ciFailed) this.#scheduleReview(this.#d.world.ciSimMs * (1 - elapsed), 0, midLife);
    if (phase === "review") this.#scheduleReview(0, elapsed, midLife);
    if (phase === "fix" && !ciFailed) {
      const verdict = this.#d.world.reviewVerdict(0, fate);
      this.#d.world.review(this.#pr, false, Math.max(1, verdict.comments));
      this.#reviewsScheduled = 1;
      this.#reviewsSeen = 1;
    }
  }

  /**
   * How long ago a mid-life session's run was created: the part of CI behind it, plus the review
   * wait and the fix behind it (their means). Runs of PRs further along are older, so the runs
   * list puts the running ones first, as a world that had been running would: the Actions guard's
   * page, which holds the newest runs, then covers them from the start, not only after a warm-up.
   */
  #midLifeRunAgeSimMs(phase: AgentPhase, elapsed: number, ciFailed: boolean): number {
    const ciMs = this.#d.world.ciSimMs;
    const reviewMs = rangeMean(this.#d.profile.world.reviewDelayS) * 1000;
    const fixMs = rangeMean(this.#agent.fixS) * 1000;
    if (phase === "ci") return elapsed * ciMs;
    if (phase === "review") return ciMs + elapsed * reviewMs;
    return ciMs + (ciFailed ? 0 : reviewMs) + elapsed * fixMs;
  }

  async #firstIssueView(comments: boolean): Promise<void> {
    await this.#run(["issue", "view", String(this.#spec.issue), ...(comments ? ["--comments"] : [])], (ctx) =>
      issueView(ctx, comments),
    );
    this.#issueViewedAt = this.#d.clock.simElapsedMs();
  }

  /** `git push` (free), then `gh pr create` the first time; the reviewer is booked if CI will pass. */
  async #pushAndOpen(): Promise<AgentPhase> {
    const push = this.#d.world.push(this.#spec.branch, this.#pushes++, this.#d.fates);
    if (this.#pr === undefined) {
      const created = await this.#run(
        [
          "pr",
          "create",
          "--title",
          `Fix #${this.#spec.issue}`,
          "--body",
          `Closes #${this.#spec.issue}.`,
          "--head",
          this.#spec.branch,
        ],
        (ctx) => prCreate(ctx, `Fix #${this.#spec.issue}`, `Closes #${this.#spec.issue}.`),
      );
      if (created.value !== undefined) {
        this.#pr = created.value;
        await this.#d.orchestrator.prCreated(this.#spec, created.value);
      }
    }
    if (!push.failed) this.#scheduleReview(push.ciSimMs);
    return "ci";
  }

  /** Books the reviewer `afterSimMs` plus what is left of his delay (`elapsed` of it behind him) from now. */
  #scheduleReview(afterSimMs: number, elapsed = 0, midLife?: { readonly midLifeApprove: number }): void {
    if (this.#pr === undefined) return;
    const round = this.#reviewsScheduled++;
    const verdict = this.#d.world.reviewVerdict(midLife ?? round, this.#d.fates, elapsed);
    this.#d.world.scheduleReview(
      this.#pr,
      afterSimMs + verdict.delaySimMs,
      verdict.approve,
      verdict.comments,
    );
  }

  /** Watches CI the way this push's agent chose; "failed" when it learned of a failure. */
  async #watchCi(): Promise<"passed" | "failed" | "unknown"> {
    const timeoutMs = this.#agent.phaseTimeoutS * 1000;
    const style = this.#d.fates.stream("ci-watch").pick(this.#agent.ciWatch) ?? "none";
    if (style === "prChecksWatch" && this.#pr !== undefined) {
      const result = await this.#run(["pr", "checks", String(this.#pr), "--watch"], (ctx) =>
        prChecksWatch(ctx, timeoutMs),
      );
      if (result.value && result.value.pending === 0)
        return result.value.failed > 0 ? this.#readFailure() : "passed";
      return "unknown";
    }
    if (style === "runWatch") {
      await this.#sleep(5_000);
      const list = await this.#run(["run", "list", "--branch", this.#spec.branch], runListBranch);
      if (list.value) {
        const run = list.value;
        const watched = await this.#run(["run", "watch", String(run.runId)], (ctx) =>
          runWatch(ctx, run, timeoutMs),
        );
        if (watched.value === "success") return "passed";
        if (watched.value) return this.#readFailure();
      }
      return "unknown";
    }
    // No watcher: poll `gh pr checks` until nothing is pending (the ci loops also run meanwhile).
    const started = this.#d.clock.simElapsedMs();
    while (this.#d.clock.simElapsedMs() - started < timeoutMs) {
      await this.#sleep(30_000);
      if (this.#pr === undefined) continue;
      const checks = await this.#run(["pr", "checks", String(this.#pr)], prChecks);
      if (checks.value && checks.value.total > 0 && checks.value.pending === 0) {
        return checks.value.failed > 0 ? this.#readFailure() : "passed";
      }
    }
    return "unknown";
  }

  async #readFailure(): Promise<"failed"> {
    const list = await this.#run(["run", "list", "--branch", this.#spec.branch], runListBranch);
    const run = list.value;
    if (run)
      await this.#run(["run", "view", String(run.runId), "--log-failed"], (ctx) =>
        runViewLogFailed(ctx, run),
      );
    return "failed";
  }

  /** Polls `gh pr view --json reviews,...` until a new review shows (or the phase times out). */
  async #awaitReview(): Promise<"approved" | "changes"> {
    const started = this.#d.clock.simElapsedMs();
    const pollMs = 30_000;
    while (this.#d.clock.simElapsedMs() - started < this.#agent.phaseTimeoutS * 1000) {
      const view = await this.#run(
        [
          "pr",
          "view",
          String(this.#pr),
          "--json",
          "reviews,comments,reviewDecision,mergeable,mergeStateStatus",
        ],
        (ctx) => prView(ctx, "pr_view_json_reviews"),
      );
      const reviews = view.value?.reviews ?? 0;
      if (reviews > this.#reviewsSeen) {
        this.#reviewsSeen = reviews;
        return view.value?.reviewDecision === "CHANGES_REQUESTED" ? "changes" : "approved";
      }
      await this.#sleep(pollMs);
    }
    return "approved";
  }
}
