/**
 * Sends the lifecycle's GraphQL: enrichment batches (PR facts) and detection batches (which PR a
 * branch has), concurrently up to `graphqlConcurrency`, and applies each answer as it lands so one
 * slow batch does not hold back the events of the others. A failed batch (HTTP error, rate
 * limited, no data) hands its PRs back to be tried next cycle; a PR the answer does not contain
 * (deleted, no access) backs off instead of being asked for forever.
 */

import { learnChecksFromSnapshot } from "./actions-cover.js";
import { ALL_FACETS, type ChangedFacet, facetsStillToMove } from "./core/changed-facets.js";
import { type BranchTarget, buildDetectionQuery, parseDetectionAnswer } from "./core/detection-query.js";
import {
  buildEnrichmentQuery,
  type PrTarget,
  parseEnrichmentAnswer,
  parseRateLimit,
} from "./core/enrichment-query.js";
import type { EventSource } from "./core/lifecycle-event.js";
import type { PrFacts } from "./core/pr-facts.js";
import { planRefreshBatches } from "./core/refresh-batches.js";
import { normalizeRepo, prKey } from "./core/repo-ref.js";
import {
  addInvalidation,
  apply,
  type Effects,
  emit,
  emptyEffects,
  type LifecycleContext,
  recordSpend,
} from "./lifecycle-context.js";
import { mapLimit } from "./map-limit.js";
import type { GraphQLPortResponse } from "./ports.js";

export interface EnrichmentRun {
  readonly queries: number;
  readonly points: number;
  readonly prs: number;
  readonly filled: number;
  /** Not sent (budget) or failed: to be tried again. */
  readonly retry: PrTarget[];
}

export interface EnrichmentRequest {
  readonly required: readonly PrTarget[];
  readonly fillers: readonly PrTarget[];
  readonly maxBatches: number;
  readonly sourceOf: (key: string) => EventSource;
  /**
   * The effects of this cycle's signals for PRs the enrichment may read again, held back until it
   * has: a PR it reads leaves with ONE invalidation of the facets that still moved
   * (facetsStillToMove) instead of the signal's guess followed by the snapshot's. Resolved entries
   * are removed; the caller emits what is left as it was.
   */
  readonly held?: Map<string, HeldChange>;
  /** Receives the held PRs the enrichment found unchanged since the cycle began (nothing to move). */
  readonly unmoved?: Set<string>;
}

/** A PR's effects from this cycle's signals, and its facts from before them. */
export interface HeldChange {
  readonly repo: string;
  readonly number: number;
  readonly before: PrFacts | null;
  readonly effects: Effects;
}

/** The facets a set of invalidation targets moves (a target without facets moves every facet). */
function signalledFacets(held: HeldChange): ChangedFacet[] {
  const out = new Set<ChangedFacet>();
  for (const target of held.effects.invalidate) {
    if (target.pr !== held.number) continue;
    for (const f of (target.facets ?? ALL_FACETS) as readonly ChangedFacet[]) out.add(f);
  }
  return [...out];
}

/**
 * Folds a held change into the batch's effects once the enrichment has read the PR: its events go
 * first (they happened first), and the PR's invalidations (the signal's and the snapshot's) become
 * one, of the facets that still moved; none when nothing did (then true). A head that moved keeps
 * both (each names its own head's checks).
 */
function resolveHeld(held: HeldChange, fetched: PrFacts | undefined, effects: Effects): boolean {
  effects.events.unshift(...held.effects.events.splice(0));
  if (!fetched || !held.before || held.before.headSha !== fetched.headSha) {
    for (const target of held.effects.invalidate.splice(0)) addInvalidation(effects, target);
    return false;
  }
  const still = facetsStillToMove({ before: held.before, fetched, signalled: signalledFacets(held) });
  const same = (t: { repo: string; pr?: number }) =>
    t.pr === held.number && normalizeRepo(t.repo) === normalizeRepo(held.repo);
  // Named after the signal that moved it (a guard's move before a patched observation's).
  const signals = held.effects.invalidate.filter(same).map((t) => t.reason);
  const reason = signals.find((r) => r === "lifecycle:guard-moved") ?? signals[0] ?? "lifecycle:pr-changed";
  const others = held.effects.invalidate.splice(0).filter((t) => !same(t));
  for (const target of others) addInvalidation(effects, target);
  const kept = effects.invalidate.filter((t) => !same(t));
  effects.invalidate.splice(0, effects.invalidate.length, ...kept);
  if (still.length === 0) return true;
  addInvalidation(effects, {
    repo: held.repo,
    pr: held.number,
    reason,
    facets: still,
    headSha: fetched.headSha,
    branch: fetched.headRefName,
  });
  return false;
}

async function sendGraphQL(ctx: LifecycleContext, query: string): Promise<GraphQLPortResponse | undefined> {
  try {
    const response = await ctx.ports.graphql({ query }, { priority: "lifecycle" });
    ctx.totals.graphqlQueries += 1;
    ctx.totals.graphqlPoints += response.cost;
    recordSpend(ctx, response.cost);
    const rate = parseRateLimit(response.data);
    if (rate) ctx.lastRateLimit = { remaining: rate.remaining, resetAt: rate.resetAt };
    return response;
  } catch (error) {
    ctx.totals.portErrors += 1;
    ctx.logger.warn({ err: error }, "lifecycle: GraphQL request failed");
    return undefined;
  }
}

/**
 * Whether the lifecycle's queries select `rateLimit`: unless the port knows a query's cost without
 * it (inside the broker; there a query selecting rateLimit could not share a merged request).
 */
function selectsRateLimit(ctx: LifecycleContext): boolean {
  return ctx.ports.graphqlCostKnown !== true;
}

function usable(response: GraphQLPortResponse | undefined): boolean {
  return (
    response !== undefined && response.status === 200 && response.data !== undefined && response.data !== null
  );
}

export async function runEnrichment(
  ctx: LifecycleContext,
  request: EnrichmentRequest,
): Promise<EnrichmentRun> {
  const plan = planRefreshBatches({
    required: request.required,
    fillers: request.fillers,
    batchSize: ctx.config.enrichmentBatchSize,
    maxBatches: request.maxBatches,
    fill: ctx.config.fillBatches,
  });
  const retry = [...plan.deferred];
  let points = 0;
  await mapLimit(plan.batches, ctx.config.graphqlConcurrency, async (batch) => {
    const built = buildEnrichmentQuery(batch, { ...ctx.config, rateLimit: selectsRateLimit(ctx) });
    const observedAt = ctx.clock.now();
    const sentSeq = ctx.nextSeq();
    const response = await sendGraphQL(ctx, built.query);
    points += response?.cost ?? 0;
    if (!usable(response)) {
      ctx.logger.warn(
        { status: response?.status, errors: response?.errors?.slice(0, 3) },
        "lifecycle: enrichment batch failed",
      );
      retry.push(...batch);
      return;
    }
    const effects: Effects = emptyEffects();
    for (const { target, facts } of parseEnrichmentAnswer(response?.data, built, observedAt)) {
      const key = prKey(target.repo, target.number);
      const track = ctx.index.prs.get(key);
      if (!track) continue;
      track.lastRefreshAt = observedAt;
      track.lastRefreshSeq = sentSeq;
      track.patched = false;
      if (!facts) {
        track.failures += 1;
        ctx.logger.warn({ pr: key }, "lifecycle: the answer holds no data for this PR");
        continue;
      }
      track.failures = 0;
      learnChecksFromSnapshot(track, facts, observedAt);
      for (const id of [...track.sessions]) {
        const result = apply(
          ctx,
          id,
          { type: "observe", observation: { kind: "snapshot", facts }, source: request.sourceOf(key) },
          effects,
          "lifecycle:pr-changed",
        );
        if (result?.factsChanged) track.lastChangeAt = observedAt;
      }
      const held = request.held?.get(key);
      if (held) {
        request.held?.delete(key);
        if (resolveHeld(held, ctx.index.factsFor(key), effects)) request.unmoved?.add(key);
      }
    }
    await emit(ctx, effects);
  });
  return {
    queries: plan.batches.length,
    points,
    prs: plan.batches.reduce((n, b) => n + b.length, 0),
    filled: plan.filled,
    retry,
  };
}

export interface DetectionRun {
  readonly queries: number;
  readonly points: number;
  /** PRs found for sessions: to be enriched next. */
  readonly found: PrTarget[];
}

/** Looks up the newest PR of each session's branch; applies found / not-found to the sessions. */
export async function runDetection(
  ctx: LifecycleContext,
  sessionIds: readonly string[],
  source: EventSource,
): Promise<DetectionRun> {
  const targets = new Map<string, BranchTarget>();
  for (const id of sessionIds) {
    const state = ctx.index.sessions.get(id)?.state;
    if (state)
      targets.set(`${normalizeRepo(state.repo)}\u0000${state.branch}`, {
        repo: state.repo,
        branch: state.branch,
      });
  }
  const list = [...targets.values()];
  const chunks: BranchTarget[][] = [];
  for (let i = 0; i < list.length; i += ctx.config.detectionBatchSize) {
    chunks.push(list.slice(i, i + ctx.config.detectionBatchSize));
  }
  const found: PrTarget[] = [];
  let points = 0;
  const wanted = new Set(sessionIds);
  await mapLimit(chunks, ctx.config.graphqlConcurrency, async (chunk) => {
    const built = buildDetectionQuery(chunk, { rateLimit: selectsRateLimit(ctx) });
    const askedAt = ctx.nextSeq();
    const response = await sendGraphQL(ctx, built.query);
    points += response?.cost ?? 0;
    if (!usable(response)) return;
    const effects = emptyEffects();
    for (const { target, pr } of parseDetectionAnswer(response?.data, built)) {
      if (pr === undefined) continue;
      for (const id of wanted) {
        const state = ctx.index.sessions.get(id)?.state;
        if (
          !state ||
          state.branch !== target.branch ||
          normalizeRepo(state.repo) !== normalizeRepo(target.repo)
        )
          continue;
        ctx.lookedUpAt.set(id, askedAt);
        const result = apply(
          ctx,
          id,
          pr === null ? { type: "not-found", source } : { type: "found", number: pr.number, source },
          effects,
          "lifecycle:pr-detected",
        );
        if (pr !== null && result?.outcome === "applied") found.push({ repo: state.repo, number: pr.number });
      }
    }
    await emit(ctx, effects);
  });
  return { queries: chunks.length, points, found };
}
