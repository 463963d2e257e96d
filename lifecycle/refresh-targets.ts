/**
 * What `refresh(targets)` does with a webhook's targets before any GitHub call: find the affected
 * sessions (repository plus PR number, head branch or head SHA; terminal sessions are left alone),
 * apply the partial facts the payload carried (a branch that just got a PR adopts it first), drop
 * the broker's cached answers for those PRs (unless the receiver moved them: `moved`), and queue
 * their re-read when the payload did not carry the fact (core/webhook-signal.ts needsReread).
 * Sessions without a PR are queued for a lookup instead. `queued` says whether anything was.
 */
import { facetsForWebhook } from "./core/changed-facets.js";
import { normalizeRepo } from "./core/repo-ref.js";
import { isTerminalStatus } from "./core/session-status.js";
import { needsReread, type RefreshTarget } from "./core/webhook-signal.js";
import {
  addInvalidation,
  apply,
  type Effects,
  emptyEffects,
  type LifecycleContext,
} from "./lifecycle-context.js";
import type { RefreshQueue } from "./refresh-queue.js";

export function applyRefreshTargets(
  ctx: LifecycleContext,
  queue: RefreshQueue,
  targets: readonly RefreshTarget[],
  effects: Effects,
): { matched: Set<string>; queued: boolean } {
  const matched = new Set<string>();
  let queued = false;
  for (const target of targets) {
    const repo = ctx.index.repos.get(normalizeRepo(target.repo));
    if (!repo) continue;
    const numbers = new Set(target.prNumbers ?? []);
    const branches = new Set(target.branches ?? []);
    const shas = new Set(target.headShas ?? []);
    const reason = `webhook:${target.reason}`;
    for (const id of [...repo.sessions]) {
      const state = ctx.index.sessions.get(id)?.state;
      if (!state || isTerminalStatus(state.status)) continue;
      const hit =
        (state.prNumber !== null && numbers.has(state.prNumber)) ||
        branches.has(state.branch) ||
        (state.pr !== null && shas.has(state.pr.headSha));
      if (!hit) continue;
      matched.add(id);
      // Moved by the receiver: the facts still apply (and raise their events), their moves do not
      // happen twice, and not one delivery at a time.
      const into = target.moved ? emptyEffects() : effects;
      for (const observation of target.observations ?? []) {
        if (observation.kind === "pr-event" && state.prNumber === null && branches.has(state.branch)) {
          apply(ctx, id, { type: "found", number: observation.number, source: "webhook" }, into, reason);
        }
        apply(ctx, id, { type: "observe", observation, source: "webhook" }, into, reason);
      }
      if (into !== effects) effects.events.push(...into.events);
      const current = ctx.index.sessions.get(id)?.state;
      if (!current) continue;
      if (current.prNumber !== null) {
        if (!target.moved)
          addInvalidation(effects, {
            repo: current.repo,
            pr: current.prNumber,
            reason,
            facets: facetsForWebhook(target.reason),
            ...(target.actionsMoved ? { runs: [] } : {}),
            ...(current.pr ? { headSha: current.pr.headSha, branch: current.pr.headRefName } : {}),
          });
        if (needsReread(target)) {
          queue.queuePr(current.repo, current.prNumber, "webhook");
          queued = true;
        }
      } else {
        queue.queueLookup(id);
        queued = true;
      }
    }
  }
  return { matched, queued };
}
