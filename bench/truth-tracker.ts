/**
 * The truth side of staleness: subscribes to the simulator's world and, on every change, renders
 * the facts it touched (core/facts.ts) into a FactHistory stamped with the change's own time. An
 * answer is then judged against that history (core/staleness.ts).
 *
 * The renderings mirror how the simulator answers (newest check run per app/name on the head
 * commit, newest status per context; github-sim/core/derived-state.ts): if they ever drift, the
 * answers show up as "unknown" in the scorecard rather than as stale or current.
 */
import type {
  RunningSimulator,
  SimCheckRun,
  SimPullRequest,
  SimRepo,
  World,
  WorldChange,
} from "../github-sim/index.js";
import { checksValue, type Fact, jobsKey, prChecksKey, prStateKey, runKey, runValue } from "./core/facts.js";
import { FactHistory, type StalenessVerdict } from "./core/staleness.js";

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

  #repo(): SimRepo {
    const repo = this.#world.repo(this.#repoName);
    if (!repo) throw new Error(`truth tracker: repository ${this.#repoName} is not in the world`);
    return repo;
  }

  #recordPull(repo: SimRepo, pr: SimPullRequest, at: number): void {
    this.#history.record(prStateKey(repo.fullName, pr.number), at, prStateValue(pr));
    this.#history.record(prChecksKey(repo.fullName, pr.number), at, prChecksValue(repo, pr));
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
      if (pr) this.#recordPull(repo, pr, change.at);
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
