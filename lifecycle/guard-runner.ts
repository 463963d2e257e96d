/**
 * Runs the cycle's guards concurrently and turns their answers into "these PRs need a refresh"
 * and "these branches got a PR". A repository whose list moved is read page by page (newest
 * first) until a PR older than the last walk's newest; when the walk cannot reach it (first walk
 * after start with facts restored, or more changes than `maxRepoPages` pages), every tracked PR
 * of the repository it did not see is refreshed and its PR-less sessions are looked up again.
 * A guard that fails is retried on its next interval; it never fails the cycle. A rate-limit
 * answer (429, or a 403 that says "rate limit") stops the cycle's remaining PR guards: they stay
 * due and lead the next cycle, instead of hammering a limit that is already hit.
 */

import { actionsCoverAt } from "./actions-cover.js";
import { coverage, type RunMark as MovedRun, movedRuns, parseRunsPage } from "./core/actions-runs.js";
import {
  checkRunsFromBody,
  checksToApply,
  type ListedPr,
  parsePullList,
  reviewCommentsMark,
  scanPullPage,
  statusesFromBody,
} from "./core/guard-outcome.js";
import {
  type GuardRequest,
  hasReviewActivity,
  type PrGuardState,
  planGuards,
  repoPullsPath,
} from "./core/guard-plan.js";
import type { PrObservation } from "./core/merge-observation.js";
import { mapCiState } from "./core/pr-enrichment.js";
import type { PrFacts } from "./core/pr-facts.js";
import { asNumber, asString, asTime, dig } from "./core/read-json.js";
import { normalizeRepo, prKey } from "./core/repo-ref.js";
import { isTerminalStatus } from "./core/session-status.js";
import { type LifecycleContext, recordRestSpend } from "./lifecycle-context.js";
import { mapLimit } from "./map-limit.js";
import type { RestConditionalResponse } from "./ports.js";
import type { PrTrack, RepoTrack } from "./session-index.js";

export interface GuardRun {
  readonly requests: number;
  readonly notModified: number;
  readonly errors: number;
  /** A rate limit was hit: the rest of the cycle's PR guards were not sent. */
  readonly halted: boolean;
  /** PR keys whose guard moved with a difference only a GraphQL re-read can settle → reason. */
  readonly changed: Map<string, string>;
  /** Checks a guard read completely, to apply without GraphQL. */
  readonly observations: { readonly key: string; readonly observation: PrObservation }[];
  /** Sessions whose branch got a PR, found in a PR list. */
  readonly detected: { readonly sessionId: string; readonly number: number }[];
  /** PR-less sessions to look up by GraphQL (their repository walk was incomplete). */
  readonly lookup: Set<string>;
  /**
   * Items a repository list guard saw move that no PR guard tracks (another agent's PR, an
   * issue): their cached answers go before the list is vouched for.
   */
  readonly listed: { readonly repo: string; readonly number: number; readonly branch: string | null }[];
  /** Workflow runs an Actions guard saw move, per repository (their answers go before it vouches). */
  readonly runsMoved: { readonly repo: string; readonly runs: readonly MovedRun[] }[];
  /** PR key → the moved runs on its head or branch (a "actions" move in `changed`). */
  readonly prRuns: Map<string, MovedRun[]>;
}

interface RunCounters {
  requests: number;
  notModified: number;
  errors: number;
  halted: boolean;
}

/**
 * One conditional GET. Its charge counts toward the REST spend rate (which may stretch intervals)
 * unless it is the very first read of that guard: baselining every guard once is a one-off cost
 * (at start; a review-comments guard when its PR first shows a review), not the recurring cost of
 * polling, and must not throttle the loop for ten minutes.
 */
async function get(
  ctx: LifecycleContext,
  run: RunCounters,
  path: string,
  etag: string | undefined,
  counts: boolean,
): Promise<RestConditionalResponse | undefined> {
  run.requests += 1;
  ctx.totals.restRequests += 1;
  try {
    const response = await ctx.ports.restConditional(etag === undefined ? { path } : { path, etag });
    ctx.totals.restCost += response.cost;
    if (counts) recordRestSpend(ctx, response.cost);
    if (response.status === 304) {
      run.notModified += 1;
      ctx.totals.restNotModified += 1;
    } else if (response.status >= 400) {
      run.errors += 1;
      const message = asString(dig(response.body, "message")) ?? "";
      if (response.status === 429 || (response.status === 403 && /rate limit/i.test(message))) {
        run.halted = true;
        ctx.logger.warn(
          { path, status: response.status },
          "lifecycle: rate limited; the remaining guards wait",
        );
      }
      ctx.logger.debug({ path, status: response.status }, "lifecycle: guard answered with an error");
    }
    return response;
  } catch (error) {
    run.errors += 1;
    ctx.totals.portErrors += 1;
    ctx.logger.warn({ err: error, path }, "lifecycle: guard request failed");
    return undefined;
  }
}

function prGuardState(ctx: LifecycleContext, track: PrTrack): PrGuardState {
  const facts = ctx.index.factsFor(track.key);
  const backstop = actionsCoverAt(ctx.index, track, facts) !== null;
  return {
    repo: track.repo,
    number: track.number,
    open: facts?.state === "OPEN",
    headSha: facts?.headSha ?? null,
    ciStatus: facts ? mapCiState(facts.rollupState) : null,
    hasStatusContexts: facts?.checks.some((c) => c.kind === "status-context") ?? false,
    lastChangeAt: track.lastChangeAt,
    checksEtag: facts && track.checksSha === facts.headSha ? track.checksEtag : undefined,
    statusEtag: facts && track.statusSha === facts.headSha ? track.statusEtag : undefined,
    commentsEtag: track.commentsEtag,
    // A covered PR's checks are read in full by GraphQL whenever the Actions guard sees its runs
    // move: its REST backstop counts from the later of the two reads (its ETag is stale by then,
    // so every backstop read during CI would be a charged 200).
    lastChecksAt: backstop
      ? Math.max(track.lastChecksAt ?? 0, track.lastRefreshAt ?? 0) || null
      : track.lastChecksAt,
    lastStatusAt: track.lastStatusAt,
    lastCommentsAt: track.lastCommentsAt,
    readByAgentsAt: track.readByAgentsAt,
    checksBackstop: backstop,
    reviewed: facts ? hasReviewActivity(facts) : false,
  };
}

/** Every check run on the page belongs to GitHub Actions (so the Actions guard sees them move). */
function actionsOnly(body: unknown): boolean {
  const runs = dig(body, "check_runs");
  return Array.isArray(runs) && runs.every((run) => asString(dig(run, "app", "slug")) === "github-actions");
}

/**
 * The Actions guard: a 304 confirms every run on the page; a 200 is diffed against the runs seen
 * last time, and the PRs whose head (or head branch) a moved run is on are re-read. The first
 * read only baselines: PRs become covered once their check-runs guard has read after it.
 */
async function runActions(
  ctx: LifecycleContext,
  run: GuardRun & RunCounters,
  repo: RepoTrack,
  guard: GuardRequest,
  now: number,
): Promise<void> {
  const response = await get(ctx, run, guard.path, guard.etag, repo.actionsCheckedAt !== null);
  repo.actionsCheckedAt = now;
  if (response?.status === 304 && repo.actionsRuns !== null) {
    repo.actionsConfirmedAt = now;
    return;
  }
  const page = response?.status === 200 ? parseRunsPage(response.body) : undefined;
  if (!page) {
    // Not answering (Actions disabled, an error): PR check guards go back to their own cadence.
    repo.actionsConfirmedAt = null;
    return;
  }
  repo.actionsEtag = response?.etag;
  const moved = movedRuns(repo.actionsRuns, page);
  repo.actionsRuns = new Map(page.runs.map((r) => [r.id, r.mark]));
  repo.actionsCover = coverage(page);
  if (repo.actionsSince === null) repo.actionsSince = now;
  repo.actionsConfirmedAt = now;
  if (moved.length === 0) return;
  run.runsMoved.push({ repo: repo.repo, runs: moved });
  for (const track of ctx.index.prs.values()) {
    if (normalizeRepo(track.repo) !== repo.key) continue;
    const facts = ctx.index.factsFor(track.key);
    if (facts?.state !== "OPEN") continue;
    const head = facts.headSha.toLowerCase();
    const mine = moved.filter(
      (r) => r.headSha === head || (r.branch !== null && r.branch === facts.headRefName),
    );
    if (mine.length === 0) continue;
    run.changed.set(track.key, "actions");
    run.prRuns.set(track.key, mine);
  }
}

/** Branches of the repository's sessions that wait for a PR (none yet, or theirs is closed). */
function waitingBranches(ctx: LifecycleContext, repo: RepoTrack): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  for (const id of repo.sessions) {
    const state = ctx.index.sessions.get(id)?.state;
    if (!state || isTerminalStatus(state.status)) continue;
    if (state.prNumber !== null && state.pr?.state !== "CLOSED") continue;
    const held = out.get(state.branch) ?? new Set<number>();
    if (state.prNumber !== null) held.add(state.prNumber);
    out.set(state.branch, held);
  }
  return out;
}

async function walkRepo(
  ctx: LifecycleContext,
  run: GuardRun & RunCounters,
  repo: RepoTrack,
  first: RestConditionalResponse,
): Promise<boolean> {
  const known = new Map<number, Pick<PrFacts, "updatedAt" | "headSha" | "state"> | undefined>();
  for (const track of ctx.index.prs.values()) {
    if (normalizeRepo(track.repo) === repo.key) known.set(track.number, ctx.index.factsFor(track.key));
  }
  const waiting = waitingBranches(ctx, repo);
  const seen = new Set<number>();
  let newest: number | null = null;
  let complete = false;
  let response: RestConditionalResponse | undefined = first;
  for (let page = 1; response && page <= ctx.config.maxRepoPages; page++) {
    const items: ListedPr[] | undefined = response.status === 200 ? parsePullList(response.body) : undefined;
    if (!items) break;
    const scan = scanPullPage({
      repo: repo.repo,
      items,
      known,
      waitingBranches: waiting,
      highWater: repo.highWater,
    });
    for (const item of items) {
      seen.add(item.number);
      const newer = repo.highWater === null || item.updatedAt >= repo.highWater;
      if (newer && !known.has(item.number))
        run.listed.push({ repo: repo.repo, number: item.number, branch: item.headRef });
    }
    if (scan.newest !== null) newest = newest === null ? scan.newest : Math.max(newest, scan.newest);
    for (const number of scan.changed) run.changed.set(prKey(repo.repo, number), "pr-list");
    for (const { branch, pr } of scan.detected) {
      // Newest-updated first: the first PR listed for a branch is the one to adopt.
      if (!waiting.delete(branch)) continue;
      for (const id of repo.sessions) {
        const state = ctx.index.sessions.get(id)?.state;
        if (state?.branch === branch && (state.prNumber === null || state.pr?.state === "CLOSED")) {
          run.detected.push({ sessionId: id, number: pr.number });
        }
      }
    }
    if ((scan.reachedKnown && repo.highWater !== null) || items.length < ctx.config.repoPageSize) {
      complete = true;
      break;
    }
    if (page === ctx.config.maxRepoPages) break;
    response = await get(
      ctx,
      run,
      repoPullsPath(repo.repo, ctx.config.repoPageSize, page + 1),
      undefined,
      true,
    );
  }
  if (newest !== null) repo.highWater = repo.highWater === null ? newest : Math.max(repo.highWater, newest);
  if (complete) return true;
  for (const [number, facts] of known) {
    if (!seen.has(number) && facts !== undefined)
      run.changed.set(prKey(repo.repo, number), "pr-list-overflow");
  }
  for (const id of repo.sessions) {
    const state = ctx.index.sessions.get(id)?.state;
    if (state && state.prNumber === null && !isTerminalStatus(state.status)) run.lookup.add(id);
  }
  return false;
}

/** updatedAt of the lifecycle's facts for each tracked PR of a repository (those it has read). */
function trackedUpdatedAt(ctx: LifecycleContext, repoKey: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const track of ctx.index.prs.values()) {
    if (normalizeRepo(track.repo) !== repoKey) continue;
    const facts = ctx.index.factsFor(track.key);
    if (facts) out.set(track.number, facts.updatedAt);
  }
  return out;
}

async function runOne(
  ctx: LifecycleContext,
  run: GuardRun & RunCounters,
  guard: GuardRequest,
  now: number,
): Promise<void> {
  if (guard.kind === "repo-prs") {
    const repo = ctx.index.repos.get(normalizeRepo(guard.repo));
    if (!repo) return;
    const response = await get(ctx, run, guard.path, guard.etag, repo.lastCheckedAt !== null);
    repo.lastCheckedAt = now;
    if (response?.status === 304) repo.confirmedAt = now;
    if (response?.status !== 200) return;
    repo.etag = response.etag;
    // Answers stored before the first read may predate a change no read saw: never vouched.
    if (repo.pullsSince === null) repo.pullsSince = now;
    if (await walkRepo(ctx, run, repo, response)) repo.confirmedAt = now;
    return;
  }
  if (guard.kind === "repo-actions") {
    const repo = ctx.index.repos.get(normalizeRepo(guard.repo));
    if (repo) await runActions(ctx, run, repo, guard, now);
    return;
  }
  if (guard.kind === "repo-issues") {
    const repo = ctx.index.repos.get(normalizeRepo(guard.repo));
    if (!repo) return;
    const response = await get(ctx, run, guard.path, guard.etag, repo.issuesCheckedAt !== null);
    repo.issuesCheckedAt = now;
    if (response?.status === 304 && repo.issuesSince !== null) repo.issuesConfirmedAt = now;
    if (response?.status !== 200) return;
    repo.issuesEtag = response.etag;
    const items = Array.isArray(response.body) ? response.body : [];
    const tracked = trackedUpdatedAt(ctx, repo.key);
    let newest = repo.issuesHighWater;
    let reachedKnown = false;
    for (const item of items) {
      const number = asNumber(dig(item, "number"));
      const updatedAt = asTime(dig(item, "updated_at"));
      if (number === undefined || updatedAt === null) continue;
      newest = newest === null ? updatedAt : Math.max(newest, updatedAt);
      if (repo.issuesHighWater !== null && updatedAt < repo.issuesHighWater) {
        reachedKnown = true;
        continue;
      }
      // A PR the lifecycle holds facts for at this version is its PR guards' to watch: its facets
      // were moved when those facts were read, and the PR guards see every later change. Moving
      // them again (every first read lists it) would turn agents' answers stored since into stale ones.
      const known = tracked.get(number);
      if (known !== undefined && updatedAt <= known) continue;
      run.listed.push({ repo: repo.repo, number, branch: null });
    }
    const baseline = repo.issuesHighWater === null;
    repo.issuesHighWater = newest;
    // The first read invalidates what it lists and vouches only for answers stored after it; a
    // later read is complete when it reached items older than the last one (or held every item).
    if (baseline || reachedKnown || items.length < ctx.config.repoPageSize) {
      if (repo.issuesSince === null) repo.issuesSince = now;
      repo.issuesConfirmedAt = now;
    }
    return;
  }
  const key = prKey(guard.repo, guard.number as number);
  const track = ctx.index.prs.get(key);
  if (!track) return;
  const seenBefore =
    guard.kind === "review-comments" ? track.lastCommentsAt !== null : track.lastChecksAt !== null;
  const response = await get(ctx, run, guard.path, guard.etag, seenBefore);
  const facts = ctx.index.factsFor(key);
  if (guard.kind === "review-comments") {
    track.lastCommentsAt = now;
    if (response?.status !== 200) return;
    track.commentsEtag = response.etag;
    const mark = reviewCommentsMark(response.body);
    if (track.commentsMark !== undefined && mark !== undefined && mark !== track.commentsMark) {
      run.changed.set(key, "review-comments");
    }
    if (mark !== undefined) track.commentsMark = mark;
    return;
  }
  if (guard.kind === "check-runs") track.lastChecksAt = now;
  else track.lastStatusAt = now;
  if (!response) return;
  if ((response.status === 200 || response.status === 304) && facts?.headSha === guard.sha) {
    if (guard.kind === "check-runs") track.checksConfirmedAt = now;
    else track.statusConfirmedAt = now;
  }
  if (response.status === 404 || response.status === 422) {
    run.changed.set(key, `${guard.kind}-gone`);
    return;
  }
  if (response.status !== 200) return;
  const read =
    guard.kind === "check-runs"
      ? checkRunsFromBody(response.body, now)
      : statusesFromBody(response.body, now);
  if (guard.kind === "check-runs") {
    track.checksEtag = response.etag;
    track.checksSha = guard.sha;
    track.checksActionsOnly = actionsOnly(response.body);
    track.checksNames = new Set(read?.checks.map((c) => c.name) ?? []);
  } else {
    track.statusEtag = response.etag;
    track.statusSha = guard.sha;
  }
  const verdict = facts?.headSha === guard.sha ? checksToApply(facts, read) : "refresh";
  if (verdict === "refresh") {
    run.changed.set(key, guard.kind);
    return;
  }
  for (const check of verdict) {
    run.observations.push({
      key,
      observation: { kind: "check", repo: guard.repo, headSha: guard.sha as string, check },
    });
  }
}

export async function runGuards(
  ctx: LifecycleContext,
  options: { now: number; stretch: number; maxRequests: number },
): Promise<GuardRun> {
  const guards = planGuards({
    repos: [...ctx.index.repos.values()].map((r) => ({
      repo: r.repo,
      etag: r.etag,
      lastCheckedAt: r.lastCheckedAt,
      // The issues-list guard only serves vouching: without a cache to tell, it would cost for nothing.
      ...(ctx.ports.vouchLists ? { issues: { etag: r.issuesEtag, lastCheckedAt: r.issuesCheckedAt } } : {}),
      // The Actions guard replaces per-PR check guards only where the cache listens for its vouches.
      ...(ctx.ports.vouchActions && ctx.config.actionsIntervalMs > 0
        ? { actions: { etag: r.actionsEtag, lastCheckedAt: r.actionsCheckedAt } }
        : {}),
    })),
    prs: [...ctx.index.prs.values()].map((t) => prGuardState(ctx, t)),
    now: options.now,
    options: ctx.config,
    stretch: options.stretch,
    maxRequests: options.maxRequests,
    cycleMs: ctx.config.cycleIntervalMs,
  });
  const run: GuardRun & RunCounters = {
    requests: 0,
    notModified: 0,
    errors: 0,
    halted: false,
    changed: new Map<string, string>(),
    observations: [],
    detected: [],
    lookup: new Set<string>(),
    listed: [],
    runsMoved: [],
    prRuns: new Map(),
  };
  await mapLimit(guards, ctx.config.restConcurrency, async (guard) => {
    if (run.halted && guard.kind !== "repo-prs" && guard.kind !== "repo-actions") return;
    await runOne(ctx, run, guard, options.now);
  });
  return run;
}
