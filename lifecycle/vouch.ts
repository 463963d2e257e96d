/**
 * Vouching: after a cycle, tell the broker's cache which watched PRs its guards saw unchanged, and
 * as of when. The guards are free (conditional REST reads answered 304), and every change they do
 * see is invalidated before this runs, so an agent's cached GraphQL answer about such a PR is known
 * good up to the vouch: the cache may keep serving it (cache.guardedFreshMs) instead of paying a
 * point to ask GitHub again. That is what lets agents' own polling of their PR cost nothing while
 * nothing happens.
 *
 * Before the guards are planned, learnAgentReads asks the cache which PRs agents have been reading
 * past plain freshness: those PRs' check guards run at the active cadence (core/cadence.ts), so
 * their vouches stay within the cache's window instead of aging at the quiet cadence.
 *
 * A PR is vouched for as of the OLDEST of: its repository's PR-list guard (read to the end: any
 * update to the PR, its reviews or comments moves updated_at), its check-runs guard and, when it has
 * status contexts, its statuses guard, both for the current head. A PR whose guard moved this cycle,
 * or whose invalidation failed and has not yet been repeated successfully, is not vouched for.
 */
import { actionsCoverAt } from "./actions-cover.js";
import { normalizeRepo, prKey } from "./core/repo-ref.js";
import { type LifecycleContext, unsettledKey } from "./lifecycle-context.js";
import type { ActionsVouchTarget, ListVouchTarget, VouchTarget } from "./ports.js";
import type { PrTrack } from "./session-index.js";

/** Repeats failed invalidations; those that succeed no longer hold their PRs back. */
async function settle(ctx: LifecycleContext): Promise<void> {
  for (const [key, target] of [...ctx.unsettled]) {
    try {
      await ctx.ports.invalidate(target);
      ctx.unsettled.delete(key);
      ctx.totals.invalidations += 1;
    } catch {
      return; // the cache is still unreachable; vouching would fail as well
    }
  }
}

/** As of when a PR's check runs are confirmed: its check-runs guard, or the Actions guard that covers them. */
function checksConfirmedAt(ctx: LifecycleContext, track: PrTrack): number | null {
  const cover = actionsCoverAt(ctx.index, track);
  if (cover === null) return track.checksConfirmedAt;
  return Math.max(cover, track.checksConfirmedAt ?? cover);
}

export function vouchTargets(ctx: LifecycleContext, movedThisCycle: ReadonlySet<string>): VouchTarget[] {
  const targets: VouchTarget[] = [];
  for (const track of ctx.index.prs.values()) {
    if (movedThisCycle.has(track.key) || ctx.unsettled.has(track.key)) continue;
    const repoKey = normalizeRepo(track.repo);
    if (ctx.unsettled.has(unsettledKey({ repo: track.repo, reason: "" }))) continue;
    const facts = ctx.index.factsFor(track.key);
    if (facts?.state !== "OPEN") continue;
    const listAt = ctx.index.repos.get(repoKey)?.confirmedAt ?? null;
    const hasStatus = facts.checks.some((c) => c.kind === "status-context");
    const statusAt = hasStatus ? track.statusConfirmedAt : Number.POSITIVE_INFINITY;
    const checksAt = checksConfirmedAt(ctx, track);
    if (listAt === null || checksAt === null || statusAt === null) continue;
    const at = Math.min(listAt, checksAt, statusAt);
    if (track.vouchedAt !== null && at <= track.vouchedAt) continue;
    targets.push({ repo: track.repo, pr: track.number, at });
  }
  return targets;
}

/**
 * Repository lists vouched for as of their guards' last confirmation (every item those guards saw
 * move was invalidated before this runs); none for a repository with an unsettled invalidation.
 */
export function listVouchTargets(ctx: LifecycleContext): ListVouchTarget[] {
  const blocked = new Set([...ctx.unsettled.values()].map((t) => normalizeRepo(t.repo)));
  const targets: ListVouchTarget[] = [];
  for (const repo of ctx.index.repos.values()) {
    if (blocked.has(repo.key)) continue;
    if (
      repo.confirmedAt !== null &&
      repo.pullsSince !== null &&
      repo.confirmedAt > (repo.pullsVouchedAt ?? 0)
    )
      targets.push({ repo: repo.repo, list: "pulls", at: repo.confirmedAt, since: repo.pullsSince });
    if (
      repo.issuesConfirmedAt !== null &&
      repo.issuesSince !== null &&
      repo.issuesConfirmedAt > (repo.issuesVouchedAt ?? 0)
    )
      targets.push({ repo: repo.repo, list: "issues", at: repo.issuesConfirmedAt, since: repo.issuesSince });
  }
  return targets;
}

async function sendListVouches(ctx: LifecycleContext): Promise<void> {
  const vouchLists = ctx.ports.vouchLists?.bind(ctx.ports);
  if (!vouchLists) return;
  const targets = listVouchTargets(ctx);
  if (targets.length === 0) return;
  try {
    await vouchLists(targets);
  } catch (error) {
    ctx.totals.portErrors += 1;
    ctx.logger.warn({ err: error, lists: targets.length }, "lifecycle: list vouch failed");
    return;
  }
  for (const target of targets) {
    const repo = ctx.index.repos.get(normalizeRepo(target.repo));
    if (!repo) continue;
    if (target.list === "pulls") repo.pullsVouchedAt = target.at;
    else repo.issuesVouchedAt = target.at;
  }
}

/**
 * Repositories whose Actions guard confirmed its page (every run it saw move was invalidated
 * before this runs), with the heads it covers: a head's commit checks are good as of the older of
 * the Actions guard and, when it has commit statuses, its statuses guard. Heads whose PR moved
 * this cycle are left out; a repository with an unsettled invalidation gets none.
 */
export function actionsVouchTargets(
  ctx: LifecycleContext,
  movedThisCycle: ReadonlySet<string>,
): ActionsVouchTarget[] {
  const blocked = new Set([...ctx.unsettled.values()].map((t) => normalizeRepo(t.repo)));
  const heads = new Map<string, { sha: string; at: number }[]>();
  for (const track of ctx.index.prs.values()) {
    if (movedThisCycle.has(track.key)) continue;
    const facts = ctx.index.factsFor(track.key);
    const cover = actionsCoverAt(ctx.index, track, facts);
    if (cover === null || !facts) continue;
    const hasStatus = facts.checks.some((c) => c.kind === "status-context");
    const statusAt = hasStatus ? (track.statusSha === facts.headSha ? track.statusConfirmedAt : null) : cover;
    if (statusAt === null) continue;
    const at = Math.min(cover, statusAt);
    if (track.shaVouchedAt !== null && at <= track.shaVouchedAt) continue;
    const key = normalizeRepo(track.repo);
    const list = heads.get(key) ?? [];
    list.push({ sha: facts.headSha, at });
    heads.set(key, list);
  }
  const targets: ActionsVouchTarget[] = [];
  for (const repo of ctx.index.repos.values()) {
    if (blocked.has(repo.key) || repo.actionsConfirmedAt === null || repo.actionsSince === null) continue;
    const own = heads.get(repo.key) ?? [];
    if (repo.actionsConfirmedAt <= (repo.actionsVouchedAt ?? 0) && own.length === 0) continue;
    targets.push({
      repo: repo.repo,
      at: repo.actionsConfirmedAt,
      since: repo.actionsSince,
      heads: own.map(({ sha, at }) => ({ sha, at })),
      runs: [...(repo.actionsRuns?.keys() ?? [])],
    });
  }
  return targets;
}

async function sendActionsVouches(ctx: LifecycleContext, movedThisCycle: ReadonlySet<string>): Promise<void> {
  const vouchActions = ctx.ports.vouchActions?.bind(ctx.ports);
  if (!vouchActions) return;
  const targets = actionsVouchTargets(ctx, movedThisCycle);
  if (targets.length === 0) return;
  try {
    await vouchActions(targets);
  } catch (error) {
    ctx.totals.portErrors += 1;
    ctx.logger.warn({ err: error, repos: targets.length }, "lifecycle: Actions vouch failed");
    return;
  }
  for (const target of targets) {
    const repo = ctx.index.repos.get(normalizeRepo(target.repo));
    if (repo) repo.actionsVouchedAt = target.at;
  }
  for (const target of targets) {
    const sent = new Map(target.heads.map((h) => [h.sha, h.at]));
    for (const track of ctx.index.prs.values()) {
      if (normalizeRepo(track.repo) !== normalizeRepo(target.repo)) continue;
      const head = ctx.index.factsFor(track.key)?.headSha;
      const at = head === undefined ? undefined : sent.get(head);
      if (at !== undefined) track.shaVouchedAt = at;
    }
  }
}

/** Learns which watched PRs agents have been reading (before the guards are planned). */
export async function learnAgentReads(ctx: LifecycleContext): Promise<void> {
  const agentReads = ctx.ports.agentReads?.bind(ctx.ports);
  if (!agentReads) return;
  const tracks = [...ctx.index.prs.values()];
  if (tracks.length === 0) return;
  try {
    const reads = await agentReads(tracks.map((t) => ({ repo: t.repo, pr: t.number })));
    tracks.forEach((track, i) => {
      track.readByAgentsAt = reads[i] ?? null;
    });
  } catch (error) {
    ctx.totals.portErrors += 1;
    ctx.logger.warn({ err: error }, "lifecycle: reading agents' reads failed");
  }
}

/** Sends this cycle's vouches; a failure only costs the cache's extension, never the cycle. */
export async function sendVouches(
  ctx: LifecycleContext,
  movedThisCycle: ReadonlySet<string>,
): Promise<number> {
  if (ctx.unsettled.size > 0) await settle(ctx);
  await sendListVouches(ctx);
  await sendActionsVouches(ctx, movedThisCycle);
  const vouch = ctx.ports.vouch?.bind(ctx.ports);
  if (!vouch) return 0;
  const targets = vouchTargets(ctx, movedThisCycle);
  if (targets.length === 0) return 0;
  try {
    await vouch(targets);
  } catch (error) {
    ctx.totals.portErrors += 1;
    ctx.logger.warn({ err: error, prs: targets.length }, "lifecycle: vouch failed");
    return 0;
  }
  for (const target of targets) {
    const track = ctx.index.prs.get(prKey(target.repo, target.pr));
    if (track) track.vouchedAt = target.at;
  }
  return targets.length;
}
