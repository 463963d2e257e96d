/**
 * The service's in-memory view: watched sessions with their state, and two derived indexes that
 * the guards work on — one track per PR (ETags, when each guard last ran, when it was last read)
 * and one per repository (the PR-list guard's ETag and high-water mark). Several sessions may
 * share a PR or a repository; a track lives while at least one session needs it.
 */
import type { RunsCoverage } from "./core/actions-runs.js";
import type { PrFacts } from "./core/pr-facts.js";
import { normalizeRepo, prKey } from "./core/repo-ref.js";
import type { SessionState } from "./core/session-state.js";
import type { WatchRecord } from "./watch-store.js";

export interface SessionEntry {
  readonly watch: WatchRecord;
  state: SessionState;
}

export interface PrTrack {
  readonly key: string;
  readonly repo: string;
  readonly number: number;
  readonly sessions: Set<string>;
  checksEtag: string | undefined;
  checksSha: string | undefined;
  statusEtag: string | undefined;
  statusSha: string | undefined;
  commentsEtag: string | undefined;
  commentsMark: string | undefined;
  lastChecksAt: number | null;
  /** Local ms the statuses guard last ran (its cadence is the PR's own, the check-runs guard may be a backstop). */
  lastStatusAt: number | null;
  lastCommentsAt: number | null;
  /** The last check-runs page read for `checksSha` lists only GitHub Actions runs (null: not read). */
  checksActionsOnly: boolean | null;
  /** The check runs' names on that page (a check the facts hold beyond them may be another app's). */
  checksNames: ReadonlySet<string>;
  /** The `at` of the last vouch sent for this head's commit checks (`sha:`). */
  shaVouchedAt: number | null;
  /** Local ms the check-runs / statuses guard last answered (200 or 304) for the current head. */
  checksConfirmedAt: number | null;
  statusConfirmedAt: number | null;
  /** The `at` of the last vouch sent for this PR (vouches are sent only when it advances). */
  vouchedAt: number | null;
  /** When agents last read this PR through the broker, as its cache reports (ports.agentReads). */
  readByAgentsAt: number | null;
  /** Local ms the last enrichment answer for this PR was requested. */
  lastRefreshAt: number | null;
  /** Sequence number (LifecycleContext.nextSeq) of that request. */
  lastRefreshSeq: number;
  /** Local ms the PR's facts last changed. */
  lastChangeAt: number | null;
  /** Checks were patched from a guard since the last GraphQL read (such PRs fill free slots first). */
  patched: boolean;
  /** Consecutive reads that returned no usable PR (backs off re-reads). */
  failures: number;
}

export interface RepoTrack {
  readonly key: string;
  readonly repo: string;
  readonly sessions: Set<string>;
  etag: string | undefined;
  lastCheckedAt: number | null;
  /** Local ms the PR-list guard last answered (200 or 304) and was read to the end. */
  confirmedAt: number | null;
  /** Newest updated_at seen in the PR list (GitHub's clock). */
  highWater: number | null;
  /** Local ms of the first full PR-list read: cached lists stored before it are not vouched. */
  pullsSince: number | null;
  /** The PR-list vouch last sent. */
  pullsVouchedAt: number | null;
  /** The issues-list guard (issues and PRs by updated_at): its ETag, last read, confirmation, high-water mark. */
  issuesEtag: string | undefined;
  issuesCheckedAt: number | null;
  issuesConfirmedAt: number | null;
  issuesHighWater: number | null;
  issuesSince: number | null;
  issuesVouchedAt: number | null;
  /** The Actions guard (actions/runs): ETag, last read, last confirmation (null while it fails). */
  actionsEtag: string | undefined;
  actionsCheckedAt: number | null;
  actionsConfirmedAt: number | null;
  /** Local ms of its first read: answers stored before it are not vouched by it. */
  actionsSince: number | null;
  actionsVouchedAt: number | null;
  /** Runs on its last page (id → mark) and which heads that page watches. */
  actionsRuns: Map<number, string> | null;
  actionsCover: RunsCoverage | null;
}

export interface SessionIndex {
  readonly sessions: Map<string, SessionEntry>;
  readonly prs: Map<string, PrTrack>;
  readonly repos: Map<string, RepoTrack>;
  add(watch: WatchRecord, state: SessionState): void;
  remove(id: string): boolean;
  /** Replaces a session's state, moving it between PR tracks when its PR changed. */
  setState(id: string, state: SessionState): void;
  /** The facts any session holds for a PR (they are applied alike to all of them). */
  factsFor(key: string): PrFacts | undefined;
}

function newPrTrack(repo: string, number: number): PrTrack {
  return {
    key: prKey(repo, number),
    repo,
    number,
    sessions: new Set(),
    checksEtag: undefined,
    checksSha: undefined,
    statusEtag: undefined,
    statusSha: undefined,
    commentsEtag: undefined,
    commentsMark: undefined,
    lastChecksAt: null,
    lastStatusAt: null,
    lastCommentsAt: null,
    checksActionsOnly: null,
    checksNames: new Set(),
    shaVouchedAt: null,
    checksConfirmedAt: null,
    statusConfirmedAt: null,
    vouchedAt: null,
    readByAgentsAt: null,
    lastRefreshAt: null,
    lastRefreshSeq: 0,
    lastChangeAt: null,
    patched: false,
    failures: 0,
  };
}

export function createSessionIndex(): SessionIndex {
  const sessions = new Map<string, SessionEntry>();
  const prs = new Map<string, PrTrack>();
  const repos = new Map<string, RepoTrack>();

  const link = (id: string, state: SessionState) => {
    const repoKey = normalizeRepo(state.repo);
    let repo = repos.get(repoKey);
    if (!repo) {
      repo = {
        key: repoKey,
        repo: state.repo,
        sessions: new Set(),
        etag: undefined,
        lastCheckedAt: null,
        confirmedAt: null,
        highWater: null,
        pullsSince: null,
        pullsVouchedAt: null,
        issuesEtag: undefined,
        issuesCheckedAt: null,
        issuesConfirmedAt: null,
        issuesHighWater: null,
        issuesSince: null,
        issuesVouchedAt: null,
        actionsEtag: undefined,
        actionsCheckedAt: null,
        actionsConfirmedAt: null,
        actionsSince: null,
        actionsVouchedAt: null,
        actionsRuns: null,
        actionsCover: null,
      };
      repos.set(repoKey, repo);
    }
    repo.sessions.add(id);
    if (state.prNumber !== null) {
      const key = prKey(state.repo, state.prNumber);
      let track = prs.get(key);
      if (!track) {
        track = newPrTrack(state.repo, state.prNumber);
        prs.set(key, track);
      }
      track.sessions.add(id);
    }
  };
  const unlink = (id: string, state: SessionState) => {
    const repoKey = normalizeRepo(state.repo);
    const repo = repos.get(repoKey);
    repo?.sessions.delete(id);
    if (repo && repo.sessions.size === 0) repos.delete(repoKey);
    if (state.prNumber !== null) {
      const key = prKey(state.repo, state.prNumber);
      const track = prs.get(key);
      track?.sessions.delete(id);
      if (track && track.sessions.size === 0) prs.delete(key);
    }
  };

  return {
    sessions,
    prs,
    repos,
    add(watch, state) {
      const existing = sessions.get(watch.id);
      if (existing) unlink(watch.id, existing.state);
      sessions.set(watch.id, { watch, state });
      link(watch.id, state);
    },
    remove(id) {
      const entry = sessions.get(id);
      if (!entry) return false;
      unlink(id, entry.state);
      sessions.delete(id);
      return true;
    },
    setState(id, state) {
      const entry = sessions.get(id);
      if (!entry) return;
      if (entry.state.prNumber !== state.prNumber || entry.state.repo !== state.repo) {
        unlink(id, entry.state);
        link(id, state);
      }
      entry.state = state;
    },
    factsFor(key) {
      const track = prs.get(key);
      if (!track) return undefined;
      for (const id of track.sessions) {
        const pr = sessions.get(id)?.state.pr;
        if (pr && prKey(pr.repo, pr.number) === key) return pr;
      }
      return undefined;
    },
  };
}
