/**
 * The truth side of staleness: subscribes to the simulator's world and, on every change, renders
 * the facts it touched (core/facts.ts) into a FactHistory stamped with the change's own time. An
 * answer is then judged against that history (core/staleness.ts).
 *
 * The renderings mirror how the simulator answers (newest check run per app/name on the head
 * commit, newest status per context; github-sim/core/derived-state.ts): if they ever drift, the
 * answers show up as "unknown" in the scorecard rather than as stale or current.
 */
import {
  mergeStateStatus,
  type RunningSimulator,
  reviewDecision,
  type SimCheckRun,
  type SimIssue,
  type SimPullRequest,
  type SimRepo,
  type World,
  type WorldChange,
} from "../github-sim/index.js";
import {
  checksValue,
  diffValue,
  type Fact,
  issueFactKey,
  issueValue,
  jobsKey,
  prChecksKey,
  prFactKey,
  prListKey,
  prStateKey,
  reviewsValue,
  runKey,
  runValue,
} from "./core/facts.js";
import { FactHistory, type StalenessVerdict } from "./core/staleness.js";

/** `gh pr list`'s default page. */
const PR_LIST_LIMIT = 30;

function latestChecks(
  repo: SimRepo,
  sha: string,
): { checks: SimCheckRun[]; statuses: { context: string; state: string }[] } {
  const commit = repo.commits.get(sha);
  if (!commit) return { checks: [], statuses: [] };
  const byName = new Map<string, SimCheckRun>();
  for (const id of commit.checkRunIds) {
    const run = repo.checkRuns.get(id);
    if (run) byName.set(`${run.appSlug}/${run.name}`, run);
  }
  const byContext = new Map<string, { context: string; state: string }>();
  for (const status of commit.statuses)
    byContext.set(status.context, { context: status.context, state: status.state });
  return { checks: [...byName.values()], statuses: [...byContext.values()] };
}

export function prStateValue(pr: SimPullRequest): string {
  return pr.merged ? "MERGED" : pr.state === "open" ? "OPEN" : "CLOSED";
}

export function prChecksValue(repo: SimRepo, pr: SimPullRequest): string {
  const { checks, statuses } = latestChecks(repo, pr.headSha);
  return checksValue(
    checks.map((c) => ({ name: c.name, status: c.status, conclusion: c.conclusion })),
    statuses,
  );
}

export class TruthTracker {
  readonly #history = new FactHistory();
  readonly #world: World;
  readonly #repoName: string;
  readonly #sim: RunningSimulator;
  #unsubscribe: (() => void) | undefined;

  constructor(sim: RunningSimulator, repo: string) {
    this.#sim = sim;
    this.#world = sim.world;
    this.#repoName = repo;
  }

  /** Records every current fact of the repository, then follows changes. */
  start(): void {
    const repo = this.#repo();
    const now = this.#world.now();
    for (const pr of repo.pulls.values()) this.#recordPull(repo, pr, now);
    for (const id of repo.runs.keys()) this.#recordRun(repo, id, now);
    for (const issue of repo.issues.values()) this.#recordIssue(repo, issue, now);
    this.#recordPrList(repo, now);
    this.#unsubscribe = this.#world.subscribe((change) => this.#onChange(change));
  }

  close(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  /** Applies scheduled simulator changes due by now (CI motion), so the history is complete. */
  async sync(): Promise<void> {
    await this.#sim.advance(0);
  }

  judge(fact: Fact, at: number): StalenessVerdict {
    return this.#history.judge(fact.key, fact.value, at);
  }

  /** The truth histories (read-only use: change visibility). */
  get history(): FactHistory {
    return this.#history;
  }

  #repo(): SimRepo {
    const repo = this.#world.repo(this.#repoName);
    if (!repo) throw new Error(`truth tracker: repository ${this.#repoName} is not in the world`);
    return repo;
  }

  #recordPull(repo: SimRepo, pr: SimPullRequest, at: number): void {
    this.#history.record(prStateKey(repo.fullName, pr.number), at, prStateValue(pr));
    this.#history.record(prChecksKey(repo.fullName, pr.number), at, prChecksValue(repo, pr));
    const key = (kind: Parameters<typeof prFactKey>[2]) => prFactKey(repo.fullName, pr.number, kind);
    this.#history.record(key("head"), at, pr.headSha);
    this.#history.record(key("reviews"), at, reviewsValue(pr.reviews));
    this.#history.record(key("reviewDecision"), at, reviewDecision(repo, pr) ?? "none");
    this.#history.record(key("comments"), at, String(pr.comments.length));
    this.#history.record(key("reviewThreads"), at, String(pr.reviewComments.length));
    this.#history.record(key("mergeable"), at, pr.mergeable);
    this.#history.record(key("mergeState"), at, mergeStateStatus(repo, pr));
    this.#history.record(key("diff"), at, diffValue(pr.headSha, pr.files.length));
  }

  #recordIssue(repo: SimRepo, issue: SimIssue, at: number): void {
    this.#history.record(issueFactKey(repo.fullName, issue.number, "issue"), at, issueValue(issue));
    this.#history.record(
      issueFactKey(repo.fullName, issue.number, "issueComments"),
      at,
      String(issue.comments.length),
    );
  }

  /** Open PRs, newest first, as `gh pr list` pages them (created-at order = number order here). */
  #recordPrList(repo: SimRepo, at: number): void {
    const open = [...repo.pulls.values()]
      .filter((pr) => pr.state === "open")
      .sort((a, b) => b.createdAt - a.createdAt || b.number - a.number)
      .slice(0, PR_LIST_LIMIT)
      .map((pr) => pr.number);
    this.#history.record(prListKey(repo.fullName), at, open.join(",") || "none");
  }

  #recordRun(repo: SimRepo, runId: number, at: number): void {
    const run = repo.runs.get(runId);
    if (!run) return;
    this.#history.record(runKey(repo.fullName, runId), at, runValue(run.status, run.conclusion));
    const jobs = run.jobIds
      .map((id) => repo.checkRuns.get(id))
      .filter((j): j is SimCheckRun => j !== undefined);
    this.#history.record(
      jobsKey(repo.fullName, runId),
      at,
      checksValue(jobs.map((j) => ({ name: j.name, status: j.status, conclusion: j.conclusion }))),
    );
  }

  #onChange(change: WorldChange): void {
    if (change.repo.toLowerCase() !== this.#repoName.toLowerCase()) return;
    const repo = this.#repo();
    if (change.number !== undefined) {
      const pr = repo.pulls.get(change.number);
      if (pr) {
        this.#recordPull(repo, pr, change.at);
        this.#recordPrList(repo, change.at);
      }
      const issue = repo.issues.get(change.number);
      if (issue) this.#recordIssue(repo, issue, change.at);
    }
    if (change.id === undefined) return;
    let sha: string | undefined;
    if (change.kind.startsWith("workflow_run")) {
      this.#recordRun(repo, change.id, change.at);
      sha = repo.runs.get(change.id)?.headSha;
    } else if (change.kind.startsWith("check_run")) {
      const check = repo.checkRuns.get(change.id);
      if (check?.runId != null) this.#recordRun(repo, check.runId, change.at);
      sha = check?.headSha;
    } else if (change.kind === "status") {
      for (const pr of repo.pulls.values()) this.#recordPull(repo, pr, change.at);
      return;
    }
    if (sha === undefined) return;
    for (const pr of repo.pulls.values()) if (pr.headSha === sha) this.#recordPull(repo, pr, change.at);
  }
}
