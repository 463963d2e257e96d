/**
 * Which cheap conditional REST reads a cycle makes. Every guard carries the ETag of its last
 * answer, so through the broker's cache an unchanged resource costs a free 304:
 *
 * - per repository, every `repoIntervalMs`: the PR list sorted by update (state=all, so merges and
 *   closes move it too). A 304 means no PR in the repository changed — title, state, head, review,
 *   comment: everything that bumps a PR's updated_at.
 * - per open PR, on its cadence: the check runs of its head SHA (filter=latest, one page of 100, so
 *   any check moving changes the ETag; AO's per_page=1 only saw the first), and the combined commit
 *   status when the PR has status contexts. Check runs and statuses do not bump updated_at.
 * - per open PR that shows review activity (`hasReviewActivity`: a review, an unresolved thread),
 *   every `commentsIntervalMs`: the newest review comment (new threads, replies, edits). A review
 *   comment always belongs to a review, so a PR with none has no review comments, and the first one
 *   comes with a review, which moves the PR's updated_at (the PR-list guard) and shows in its facts:
 *   its first (baseline, charged) read waits for that (decision 0028).
 * - per repository, every `actionsIntervalMs` (when the cache listens): the workflow runs
 *   (core/actions-runs.ts). A PR whose head's check runs all come from Actions and whose runs that
 *   guard watches has its check-runs guard only as a backstop (`checksBackstopMs`); its statuses
 *   guard (statuses come from other sources) keeps the PR's cadence.
 *
 * When more guards are due than the cycle may make, repository guards go first (one covers many
 * PRs), then the check guards of PRs whose CI is running (their results are what agents wait
 * for), then the most overdue PR guards; the rest stay due and lead the next cycle.
 */
import { DEFAULT_LIFECYCLE_CONFIG } from "../config.js";
import { actionsRunsPath } from "./actions-runs.js";
import { type CadenceOptions, prPollInterval } from "./cadence.js";
import type { CiStatus } from "./pr-enrichment.js";
import type { PrFacts } from "./pr-facts.js";
import { parseRepo } from "./repo-ref.js";

export interface RepoGuardState {
  readonly repo: string;
  readonly etag: string | undefined;
  readonly lastCheckedAt: number | null;
  /** Present when the issues-list guard runs for this repository. */
  readonly issues?: { readonly etag: string | undefined; readonly lastCheckedAt: number | null };
  /** Present when the Actions guard runs for this repository. */
  readonly actions?: { readonly etag: string | undefined; readonly lastCheckedAt: number | null };
}

export interface PrGuardState {
  readonly repo: string;
  readonly number: number;
  readonly open: boolean;
  readonly headSha: string | null;
  readonly ciStatus: CiStatus | null;
  readonly hasStatusContexts: boolean;
  readonly lastChangeAt: number | null;
  readonly checksEtag: string | undefined;
  readonly statusEtag: string | undefined;
  readonly commentsEtag: string | undefined;
  readonly lastChecksAt: number | null;
  readonly lastCommentsAt: number | null;
  readonly readByAgentsAt?: number | null;
  /** When the statuses guard last ran; the check-runs guard's time when absent (they ran together). */
  readonly lastStatusAt?: number | null;
  /** The repository's Actions guard watches this head's check runs: check-runs is a backstop. */
  readonly checksBackstop?: boolean;
  /**
   * The PR's facts show review activity (`hasReviewActivity`): only then can it hold review
   * comments, and only then is its review-comments guard planned.
   */
  readonly reviewed: boolean;
}

/** Review decisions only a submitted review gives (REVIEW_REQUIRED and null need none). */
const DECIDED = new Set(["APPROVED", "CHANGES_REQUESTED"]);

/**
 * Whether a PR can have review comments, by its facts: GitHub files every review comment under a
 * review (a lone line comment submits one), so a PR whose last reviews are none, with no
 * unresolved thread and no decision a review gives, has none; its first comes with a review,
 * which moves updated_at (the PR-list guard re-reads the facts) and shows here.
 */
export function hasReviewActivity(
  facts: Pick<PrFacts, "reviews" | "reviewDecision" | "unresolvedThreadIds">,
): boolean {
  return (
    facts.reviews.length > 0 ||
    facts.unresolvedThreadIds.length > 0 ||
    (facts.reviewDecision !== null && DECIDED.has(facts.reviewDecision))
  );
}

export type GuardKind =
  | "repo-prs"
  | "repo-issues"
  | "repo-actions"
  | "check-runs"
  | "commit-status"
  | "review-comments";

export interface GuardRequest {
  readonly kind: GuardKind;
  readonly repo: string;
  readonly number?: number;
  readonly sha?: string;
  readonly path: string;
  readonly etag?: string;
  /** How far past due (elapsed / interval); Infinity for never checked. Orders truncation. */
  readonly urgency: number;
  /** A check guard of a PR whose CI is running: sent before every other PR guard. */
  readonly active?: boolean;
}

export interface GuardPlanOptions extends CadenceOptions {
  readonly repoIntervalMs: number;
  readonly commentsIntervalMs: number;
  /** Items per page of the repository PR-list guard. */
  readonly repoPageSize: number;
  /** The Actions guard's interval. @defaultValue repoIntervalMs */
  readonly actionsIntervalMs?: number;
  /** @defaultValue 100 */
  readonly actionsPageSize?: number;
  /** The check-runs guard of a PR the Actions guard covers. @defaultValue 120_000 */
  readonly checksBackstopMs?: number;
}

export interface GuardPlanInput {
  readonly repos: readonly RepoGuardState[];
  readonly prs: readonly PrGuardState[];
  readonly now: number;
  readonly options: GuardPlanOptions;
  /** Budget stretch for every interval (≥ 1). */
  readonly stretch: number;
  readonly maxRequests: number;
  /**
   * The poll loop's period. A guard is due once `interval − cycle/2` has passed: the loop runs at
   * a fixed rate and reads its guards a few ms after each start, so `elapsed ≥ interval` would
   * make a guard whose interval equals the period due only every other cycle (vouches twice as
   * old as planned). @defaultValue 0 (due at the interval exactly)
   */
  readonly cycleMs?: number;
}

/** The issues list (GitHub lists PRs there too) newest-updated first: any issue or PR change moves it. */
export function repoIssuesPath(repo: string, pageSize: number): string {
  const ref = parseRepo(repo);
  if (!ref) throw new TypeError(`not an owner/name repository: ${JSON.stringify(repo)}`);
  return `/repos/${ref.owner}/${ref.name}/issues?state=all&sort=updated&direction=desc&per_page=${pageSize}`;
}

export function repoPullsPath(repo: string, pageSize: number, page = 1): string {
  const ref = parseRepo(repo);
  if (!ref) throw new TypeError(`not an owner/name repository: ${JSON.stringify(repo)}`);
  const base = `/repos/${ref.owner}/${ref.name}/pulls?state=all&sort=updated&direction=desc&per_page=${pageSize}`;
  return page > 1 ? `${base}&page=${page}` : base;
}

function prefix(repo: string): string {
  const ref = parseRepo(repo);
  if (!ref) throw new TypeError(`not an owner/name repository: ${JSON.stringify(repo)}`);
  return `/repos/${ref.owner}/${ref.name}`;
}

export function checkRunsPath(repo: string, sha: string): string {
  return `${prefix(repo)}/commits/${encodeURIComponent(sha)}/check-runs?filter=latest&per_page=100`;
}

export function commitStatusPath(repo: string, sha: string): string {
  return `${prefix(repo)}/commits/${encodeURIComponent(sha)}/status?per_page=100`;
}

export function reviewCommentsPath(repo: string, number: number): string {
  return `${prefix(repo)}/pulls/${number}/comments?sort=updated&direction=desc&per_page=1`;
}

function urgency(last: number | null, interval: number, now: number, cycleMs = 0): number | undefined {
  if (last === null) return Number.POSITIVE_INFINITY;
  const elapsed = now - last;
  // Half a cycle early, never more than half the interval early.
  const slack = Math.min(cycleMs / 2, interval / 2);
  return elapsed >= interval - slack ? elapsed / Math.max(1, interval) : undefined;
}

function withEtag(request: Omit<GuardRequest, "etag">, etag: string | undefined): GuardRequest {
  return etag === undefined ? request : { ...request, etag };
}

export function planGuards(input: GuardPlanInput): GuardRequest[] {
  const { now, options, stretch } = input;
  const repoGuards: GuardRequest[] = [];
  const prGuards: GuardRequest[] = [];
  for (const repo of input.repos) {
    const u = urgency(repo.lastCheckedAt, options.repoIntervalMs * stretch, now, input.cycleMs);
    if (u !== undefined) {
      repoGuards.push(
        withEtag(
          {
            kind: "repo-prs",
            repo: repo.repo,
            path: repoPullsPath(repo.repo, options.repoPageSize),
            urgency: u,
          },
          repo.etag,
        ),
      );
    }
    const actions = repo.actions;
    const ua = actions
      ? urgency(
          actions.lastCheckedAt,
          (options.actionsIntervalMs ?? options.repoIntervalMs) * stretch,
          now,
          input.cycleMs,
        )
      : undefined;
    if (actions && ua !== undefined) {
      repoGuards.push(
        withEtag(
          {
            kind: "repo-actions",
            repo: repo.repo,
            path: actionsRunsPath(
              repo.repo,
              options.actionsPageSize ?? DEFAULT_LIFECYCLE_CONFIG.actionsPageSize,
            ),
            urgency: ua,
          },
          actions.etag,
        ),
      );
    }
    if (!repo.issues) continue;
    const ui = urgency(repo.issues.lastCheckedAt, options.repoIntervalMs * stretch, now, input.cycleMs);
    if (ui === undefined) continue;
    repoGuards.push(
      withEtag(
        {
          kind: "repo-issues",
          repo: repo.repo,
          path: repoIssuesPath(repo.repo, options.repoPageSize),
          urgency: ui,
        },
        repo.issues.etag,
      ),
    );
  }
  for (const pr of input.prs) {
    if (!pr.open || pr.headSha === null) continue;
    const interval = prPollInterval(pr, now, options) * stretch;
    const backstop = pr.checksBackstop === true;
    const checksInterval = backstop
      ? Math.max(interval, (options.checksBackstopMs ?? DEFAULT_LIFECYCLE_CONFIG.checksBackstopMs) * stretch)
      : interval;
    const checksDue = urgency(pr.lastChecksAt, checksInterval, now, input.cycleMs);
    const statusDue = pr.hasStatusContexts
      ? urgency(
          pr.lastStatusAt === undefined ? pr.lastChecksAt : pr.lastStatusAt,
          interval,
          now,
          input.cycleMs,
        )
      : undefined;
    const base = {
      repo: pr.repo,
      number: pr.number,
      sha: pr.headSha,
      ...(pr.ciStatus === "pending" ? { active: true } : {}),
    };
    if (checksDue !== undefined) {
      prGuards.push(
        withEtag(
          {
            ...base,
            // A backstop is never what agents wait for: the Actions guard is.
            ...(backstop ? { active: false } : {}),
            urgency: checksDue,
            kind: "check-runs",
            path: checkRunsPath(pr.repo, pr.headSha),
          },
          pr.checksEtag,
        ),
      );
    }
    if (statusDue !== undefined) {
      prGuards.push(
        withEtag(
          { ...base, urgency: statusDue, kind: "commit-status", path: commitStatusPath(pr.repo, pr.headSha) },
          pr.statusEtag,
        ),
      );
    }
    // Without a review there is no review comment to watch: not due, nothing spent (decision 0028).
    if (options.commentsIntervalMs <= 0 || !pr.reviewed) continue;
    const commentsDue = urgency(pr.lastCommentsAt, options.commentsIntervalMs * stretch, now, input.cycleMs);
    if (commentsDue !== undefined) {
      prGuards.push(
        withEtag(
          {
            kind: "review-comments",
            repo: pr.repo,
            number: pr.number,
            path: reviewCommentsPath(pr.repo, pr.number),
            urgency: commentsDue,
          },
          pr.commentsEtag,
        ),
      );
    }
  }
  prGuards.sort((a, b) => Number(b.active ?? false) - Number(a.active ?? false) || b.urgency - a.urgency);
  return [...repoGuards, ...prGuards].slice(0, Math.max(0, input.maxRequests));
}
