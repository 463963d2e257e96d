/**
 * The World: every repository, user, PR, issue, commit, check and workflow run the simulator
 * knows, plus a timestamped change log. It is the single writer of the model (core/model.ts);
 * readers (GraphQL, REST, tests) look but do not touch.
 *
 * Invariants:
 * - every observable change goes through `touch()`, which bumps the world version, stamps the
 *   entity and appends a WorldChange; so the change log is complete and ordered by version;
 * - the time of a change is `now()`: the scenario clock, or the scheduled instant of a timed
 *   scenario event while the engine applies it (`atTime`), so staleness can be measured exactly;
 *   never earlier than the change before it, so the log is ordered in time as in version (a
 *   motion scheduled at its run's own start lands a millisecond behind the run's creation);
 * - lookups of repositories and users are case-insensitive, as on GitHub.
 */
import type { NodeRef, SimPullRequest, SimRepo, SimUser, WorldChange } from "./model.js";
import { WorldError } from "./world-error.js";

export type WorldListener = (change: WorldChange) => void;

/** Id sequences, one per kind of record; bases keep ids of different kinds apart. */
const ID_BASES = {
  repo: 100_000,
  user: 1_000,
  pull: 1_000_000,
  issue: 2_000_000,
  comment: 3_000_000,
  review: 4_000_000,
  reviewComment: 5_000_000,
  thread: 6_000_000,
  label: 7_000_000,
  milestone: 7_500_000,
  status: 8_000_000,
  checkRun: 2_000,
  checkSuite: 3_000,
  run: 1_000,
  artifact: 9_000,
  workflow: 40,
} as const;
export type IdKind = keyof typeof ID_BASES;

export interface WorldOptions {
  /** Scenario clock, epoch ms. */
  readonly now: () => number;
  /** Login of the user the accepted token belongs to. */
  readonly viewer: string;
}

export class World {
  readonly viewer: string;
  readonly users = new Map<string, SimUser>();
  readonly repos = new Map<string, SimRepo>();
  private readonly nodes = new Map<string, NodeRef>();
  private readonly log: WorldChange[] = [];
  private readonly listeners = new Set<WorldListener>();
  private readonly counters = new Map<IdKind, number>();
  private readonly clock: () => number;
  private override: number | undefined;
  private versionCounter = 0;
  private lastChangeAt = Number.NEGATIVE_INFINITY;

  constructor(options: WorldOptions) {
    this.clock = options.now;
    this.viewer = options.viewer;
  }

  /** The time changes are stamped with. */
  now(): number {
    return this.override ?? this.clock();
  }

  /** Runs `fn` with changes stamped at `at` (a timed event's scheduled instant). */
  atTime<T>(at: number, fn: () => T): T {
    const previous = this.override;
    this.override = at;
    try {
      return fn();
    } finally {
      this.override = previous;
    }
  }

  /** The current world version: it grows by one on every change. */
  get version(): number {
    return this.versionCounter;
  }

  nextId(kind: IdKind): number {
    const next = (this.counters.get(kind) ?? ID_BASES[kind]) + 1;
    this.counters.set(kind, next);
    return next;
  }

  /** Makes sure the sequence of `kind` continues after an explicitly chosen id. */
  reserveId(kind: IdKind, id: number): number {
    if (id > (this.counters.get(kind) ?? ID_BASES[kind])) this.counters.set(kind, id);
    return id;
  }

  registerNode(nodeId: string, ref: NodeRef): void {
    this.nodes.set(nodeId, ref);
  }

  resolveNode(nodeId: string): NodeRef | undefined {
    return this.nodes.get(nodeId);
  }

  user(login: string): SimUser | undefined {
    return this.users.get(login.toLowerCase());
  }

  addUser(user: SimUser): SimUser {
    this.users.set(user.login.toLowerCase(), user);
    this.registerNode(user.nodeId, { type: user.type, login: user.login });
    return user;
  }

  repo(fullName: string): SimRepo | undefined {
    return this.repos.get(fullName.toLowerCase());
  }

  requireRepo(fullName: string): SimRepo {
    const repo = this.repo(fullName);
    if (!repo)
      throw new WorldError("NOT_FOUND", `Could not resolve to a Repository with the name '${fullName}'.`);
    return repo;
  }

  addRepo(repo: SimRepo): SimRepo {
    this.repos.set(repo.fullName.toLowerCase(), repo);
    this.registerNode(repo.nodeId, { type: "Repository", repo: repo.fullName });
    return repo;
  }

  /** The pull request with this number, or a NOT_FOUND WorldError in GitHub's words. */
  requirePull(repo: SimRepo, number: number): SimPullRequest {
    const pr = repo.pulls.get(number);
    if (!pr) {
      throw new WorldError("NOT_FOUND", `Could not resolve to a PullRequest with the number of ${number}.`);
    }
    return pr;
  }

  /** Issue or pull request with this number (they share a sequence). */
  issueOrPull(repo: SimRepo, number: number) {
    return repo.issues.get(number) ?? repo.pulls.get(number);
  }

  /**
   * Records a change: bumps the world version, stamps `target` (when given) with the new version
   * and the current time, and tells subscribers. Returns the new version.
   */
  touch(
    repo: SimRepo,
    kind: string,
    ref: { number?: number; id?: number; ref?: string },
    target?: { version: number; updatedAt?: number },
  ): number {
    const at = Math.max(this.now(), this.lastChangeAt);
    this.lastChangeAt = at;
    const version = ++this.versionCounter;
    if (target) {
      target.version = version;
      if (target.updatedAt !== undefined) target.updatedAt = at;
    }
    const change: WorldChange = {
      at,
      kind,
      repo: repo.fullName,
      version,
      ...(ref.number !== undefined ? { number: ref.number } : {}),
      ...(ref.id !== undefined ? { id: ref.id } : {}),
      ...(ref.ref !== undefined ? { ref: ref.ref } : {}),
    };
    this.log.push(change);
    for (const listener of this.listeners) listener(change);
    return version;
  }

  /** Changes recorded strictly after `sinceMs` (scenario clock), oldest first. */
  changes(sinceMs = Number.NEGATIVE_INFINITY): WorldChange[] {
    if (sinceMs === Number.NEGATIVE_INFINITY) return [...this.log];
    // The log is ordered by version, and times only move forward except for timed events
    // applied late, which are stamped in the past; a linear scan keeps this simple and exact.
    return this.log.filter((c) => c.at > sinceMs);
  }

  /** Changes with a version greater than `version`, oldest first (exact, whatever their stamps). */
  changesAfterVersion(version: number): WorldChange[] {
    let lo = 0;
    let hi = this.log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.log[mid] as WorldChange).version <= version) lo = mid + 1;
      else hi = mid;
    }
    return this.log.slice(lo);
  }

  /** Calls `listener` on every future change; returns the unsubscribe function. */
  subscribe(listener: WorldListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}
