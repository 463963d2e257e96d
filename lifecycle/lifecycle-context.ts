/**
 * What the cycle, the refresh runners and the service share: the ports, the index, the config,
 * counters, and the one place where an input is applied to a session (`apply`) and its effects
 * carried out (`emit`: invalidate the broker's cached answers for a PR whose facts changed, then
 * publish the events in order). Port failures are logged and counted, never thrown into a cycle:
 * a broken subscriber must not stop the polling of everyone else.
 */

import type { Logger } from "../common/index.js";
import { actionsWatching } from "./actions-cover.js";
import type { Clock } from "./clock.js";
import type { LifecycleConfig } from "./config.js";
import { type BudgetDecision, type BudgetSnapshot, budgetDecision } from "./core/cadence.js";
import { ALL_FACETS, changedFacets } from "./core/changed-facets.js";
import type { LifecycleEvent } from "./core/lifecycle-event.js";
import type { PrFacts } from "./core/pr-facts.js";
import { normalizeRepo, prKey } from "./core/repo-ref.js";
import { type SessionInput, transition } from "./core/session-machine.js";
import type { LifecycleInstrumentation } from "./instrumentation.js";
import type { InvalidateTarget, LifecyclePorts } from "./ports.js";
import type { SessionIndex } from "./session-index.js";

export interface LifecycleTotals {
  cycles: number;
  graphqlQueries: number;
  graphqlPoints: number;
  restRequests: number;
  restNotModified: number;
  restCost: number;
  events: number;
  invalidations: number;
  portErrors: number;
  webhookRefreshes: number;
}

export interface Effects {
  /** Without `pr`: the repository's lists and the branch's PR lookup (a PR appeared for a branch). */
  readonly invalidate: InvalidateTarget[];
  readonly events: LifecycleEvent[];
}

export interface LifecycleContext {
  readonly ports: LifecyclePorts;
  readonly instrument: LifecycleInstrumentation;
  readonly config: LifecycleConfig;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly index: SessionIndex;
  readonly totals: LifecycleTotals;
  /** Sessions whose state changed since the last save. */
  readonly dirty: Set<string>;
  /**
   * Invalidations that failed (a change the cache was not told of), kept until one succeeds: their
   * PRs (or a whole repository's) are not vouched for meanwhile (vouch.ts).
   */
  readonly unsettled: Map<string, InvalidateTarget>;
  /** Last GraphQL budget read from our own `rateLimit` selections. */
  lastRateLimit: BudgetSnapshot | undefined;
  /** When the last webhook refresh arrived (clock ms); null: none yet. Stretches the guards (core/cadence.ts webhookStretch). */
  lastWebhookAt: number | null;
  /** Session id → sequence number of the last detection query that looked its branch up. */
  readonly lookedUpAt: Map<string, number>;
  /**
   * A logical clock: queued refreshes and sent queries take increasing numbers, so "was this PR
   * read after the refresh was queued" has an answer even when both happened in the same ms.
   */
  nextSeq(): number;
  /** (local ms, points) of recent GraphQL spend, for the spend rate. */
  readonly spend: { at: number; points: number }[];
  /** (local ms, requests) of recent charged REST requests, for the spend rate. */
  readonly restSpend: { at: number; points: number }[];
}

export function newTotals(): LifecycleTotals {
  return {
    cycles: 0,
    graphqlQueries: 0,
    graphqlPoints: 0,
    restRequests: 0,
    restNotModified: 0,
    restCost: 0,
    events: 0,
    invalidations: 0,
    portErrors: 0,
    webhookRefreshes: 0,
  };
}

export function emptyEffects(): Effects {
  return { invalidate: [], events: [] };
}

export function addInvalidation(effects: Effects, target: InvalidateTarget): void {
  // Runs moved in a repository (no PR) are their own target: never merged into a new PR's.
  const runsOnly = (t: InvalidateTarget) => t.pr === undefined && t.runs !== undefined;
  const index = effects.invalidate.findIndex(
    (i) =>
      i.repo.toLowerCase() === target.repo.toLowerCase() &&
      i.pr === target.pr &&
      runsOnly(i) === runsOnly(target),
  );
  const held = effects.invalidate[index];
  if (!held) {
    effects.invalidate.push(target);
    return;
  }
  // One target per PR: the union of the facets (absent means every facet), and of the runs (a
  // target that moves checks without naming runs means every run; one that moves no checks, none).
  const facets = held.facets && target.facets ? [...new Set([...held.facets, ...target.facets])] : undefined;
  const runsOf = (t: InvalidateTarget) =>
    t.runs ?? (t.facets !== undefined && !t.facets.includes("checks") ? [] : undefined);
  const [a, b] = [runsOf(held), runsOf(target)];
  const runs = a && b ? [...a, ...b.filter((r) => !a.some((x) => x.id === r.id))] : undefined;
  const { facets: _drop, runs: _dropRuns, ...rest } = { ...held, ...target };
  effects.invalidate[index] = { ...rest, ...(facets ? { facets } : {}), ...(runs ? { runs } : {}) };
}

/** The facets that moved; every facet when the machine saw a change no facet shows. */
function movedFacets(before: PrFacts | null, after: PrFacts): readonly string[] {
  const facets = changedFacets(before, after);
  return facets.length > 0 ? facets : ALL_FACETS;
}

/** Applies one input to one session; records the effects to carry out. */
export function apply(
  ctx: LifecycleContext,
  id: string,
  input: SessionInput,
  effects: Effects,
  reason: string,
): ReturnType<typeof transition> | undefined {
  const entry = ctx.index.sessions.get(id);
  if (!entry) return undefined;
  // Taken before setState: the index may replace the entry's state in place.
  const previous = entry.state;
  const result = transition(entry.state, input, ctx.clock.now(), {
    stuckThresholdMs: ctx.config.stuckThresholdMs,
  });
  if (result.state !== entry.state) {
    ctx.index.setState(id, result.state);
    ctx.dirty.add(id);
  }
  const pr = result.state.prNumber;
  const after = result.state.pr;
  if (result.factsChanged && pr !== null) {
    const before = previous.prNumber === pr ? previous.pr : null;
    addInvalidation(effects, {
      repo: result.state.repo,
      pr,
      reason,
      ...(after
        ? { facets: movedFacets(before, after), headSha: after.headSha, branch: after.headRefName }
        : {}),
    });
  } else if (input.type === "found" && result.outcome === "applied") {
    addInvalidation(effects, {
      repo: result.state.repo,
      reason: "lifecycle:pr-detected",
      branch: result.state.branch,
    });
  }
  effects.events.push(...result.events);
  return result;
}

/**
 * A PR's checks moved without naming runs: where the repository's Actions guard answers, it sees
 * every run move itself (and drops those runs' answers), so this move drops no Actions answer;
 * elsewhere, and for a webhook's move (ahead of the guard), every Actions answer of the repository
 * goes (`runs` absent).
 */
function scopeRuns(ctx: LifecycleContext, target: InvalidateTarget): InvalidateTarget {
  if (target.pr === undefined || target.runs !== undefined) return target;
  if (target.facets !== undefined && !target.facets.includes("checks")) return target;
  // A webhook arrives before the Actions guard's next read: its move drops the Actions answers now.
  if (target.reason.startsWith("webhook:")) return target;
  return actionsWatching(ctx.index.repos.get(normalizeRepo(target.repo))) ? { ...target, runs: [] } : target;
}

/** Where a failed invalidation is remembered: one PR, or (`repo:`) a whole repository. */
export function unsettledKey(target: InvalidateTarget): string {
  return target.pr === undefined ? `repo:${normalizeRepo(target.repo)}` : prKey(target.repo, target.pr);
}

/**
 * Invalidate first (so an agent reacting to the event reads fresh data), then publish: in order
 * within a session, sessions side by side.
 */
export async function emit(ctx: LifecycleContext, effects: Effects): Promise<void> {
  const invalidations = effects.invalidate.splice(0).map((target) => scopeRuns(ctx, target));
  const events = effects.events.splice(0);
  await Promise.all(
    invalidations.map(async (target) => {
      try {
        await ctx.ports.invalidate(target);
        ctx.totals.invalidations += 1;
      } catch (error) {
        ctx.totals.portErrors += 1;
        ctx.unsettled.set(unsettledKey(target), target);
        ctx.logger.warn({ err: error, repo: target.repo, pr: target.pr }, "lifecycle: invalidate failed");
      }
    }),
  );
  const bySession = new Map<string, LifecycleEvent[]>();
  for (const event of events) {
    const list = bySession.get(event.sessionId);
    if (list) list.push(event);
    else bySession.set(event.sessionId, [event]);
  }
  await Promise.all(
    [...bySession.values()].map(async (list) => {
      for (const event of list) {
        try {
          await ctx.ports.publish(event);
          ctx.totals.events += 1;
        } catch (error) {
          ctx.totals.portErrors += 1;
          ctx.logger.warn(
            { err: error, event: event.type, session: event.sessionId },
            "lifecycle: publish failed",
          );
        }
      }
    }),
  );
}

function record(log: { at: number; points: number }[], now: number, points: number): void {
  if (points <= 0) return;
  log.push({ at: now, points });
  while (log.length > 0 && (log[0] as { at: number }).at < now - 600_000) log.shift();
}

function perHour(log: readonly { at: number; points: number }[], now: number): number {
  return log.filter((s) => s.at >= now - 600_000).reduce((sum, s) => sum + s.points, 0) * 6;
}

export function recordSpend(ctx: LifecycleContext, points: number): void {
  record(ctx.spend, ctx.clock.now(), points);
}

export function recordRestSpend(ctx: LifecycleContext, requests: number): void {
  record(ctx.restSpend, ctx.clock.now(), requests);
}

/** GraphQL points per hour over the last ten minutes. */
export function spendPerHour(ctx: LifecycleContext): number {
  return perHour(ctx.spend, ctx.clock.now());
}

/** Charged REST requests per hour over the last ten minutes. */
export function restSpendPerHour(ctx: LifecycleContext): number {
  return perHour(ctx.restSpend, ctx.clock.now());
}

/** The budget as it stands: the broker's numbers (or our own rateLimit reads) and our spend rates. */
export async function currentBudget(ctx: LifecycleContext, now: number): Promise<BudgetDecision> {
  const known = await ctx.ports.budget?.().catch(() => undefined);
  const fresh = (b: BudgetSnapshot | undefined) =>
    b && (b.resetAt === null || b.resetAt >= now) ? b : undefined;
  return budgetDecision({
    budget: { graphql: fresh(known?.graphql ?? ctx.lastRateLimit), core: fresh(known?.core) },
    now,
    spendPerHour: spendPerHour(ctx),
    restSpendPerHour: restSpendPerHour(ctx),
    reservePoints: ctx.config.reservePoints,
    reserveRest: ctx.config.reserveRest,
    maxStretch: ctx.config.maxStretch,
  });
}
