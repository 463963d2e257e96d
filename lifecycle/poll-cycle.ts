/**
 * One poll cycle: guards (concurrently; check runs and statuses they read completely are applied
 * at once) → lookups for branches without a PR (batched) → enrichment of exactly the PRs that need
 * it (batched, concurrently) → a tick for `stuck` → save.
 * What it costs: a quiet cycle makes only conditional REST reads (free 304s) and no GraphQL; a
 * cycle in which k PRs changed sends ceil(k / batch) enrichment queries of ≤ 1 point each at 25.
 * The budget stretches every interval when the lifecycle's spend would cross the reserve, and
 * caps the points one cycle may spend; PRs it could not afford lead the next cycle.
 */
import { restAllowedPerCycle, webhookStretch } from "./core/cadence.js";
import { facetsForGuardReason } from "./core/changed-facets.js";
import { enrichmentPoints, type PrTarget } from "./core/enrichment-query.js";
import type { EventSource } from "./core/lifecycle-event.js";
import { normalizeRepo, prKey } from "./core/repo-ref.js";
import { isTerminalStatus } from "./core/session-status.js";
import type { CycleReport } from "./cycle-report.js";
import { runGuards } from "./guard-runner.js";
import {
  addInvalidation,
  apply,
  currentBudget,
  type Effects,
  emit,
  emptyEffects,
  type LifecycleContext,
} from "./lifecycle-context.js";
import type { RefreshHoldPort } from "./ports.js";
import { type HeldChange, runDetection, runEnrichment } from "./refresh-runner.js";
import { learnAgentReads, sendVouches } from "./vouch.js";

export type { CycleReport };

export interface CycleState {
  /** PRs carried over from earlier cycles or webhooks (deferred or failed), most urgent first. */
  carried: PrTarget[];
  readonly sources: Map<string, EventSource>;
}

function backoffOk(failures: number, lastRefreshAt: number | null, now: number, cycleMs: number): boolean {
  if (failures === 0 || lastRefreshAt === null) return true;
  return now - lastRefreshAt >= Math.min(2 ** failures * cycleMs, 600_000);
}

export async function runPollCycle(
  ctx: LifecycleContext,
  state: CycleState,
  wallClock: () => number,
): Promise<CycleReport> {
  // The broker's refresh of what this cycle moves waits for the cycle (decision 0025): what the
  // guards moved rides in the enrichment's document, what the enrichment moved leaves in one round
  // at the end, instead of a round each 150 ms window and the enrichment alone.
  const hold = ctx.ports.holdRefresh?.();
  try {
    return await pollCycle(ctx, state, wallClock, hold);
  } finally {
    await hold?.release();
  }
}

async function pollCycle(
  ctx: LifecycleContext,
  state: CycleState,
  wallClock: () => number,
  hold: RefreshHoldPort | undefined,
): Promise<CycleReport> {
  const started = wallClock();
  const now = ctx.clock.now();
  const eventsBefore = ctx.totals.events;
  const budget = await currentBudget(ctx, now);
  // Webhooks arriving: the guards are a slow backstop (decision 0021), on top of any budget stretch.
  const decision = {
    ...budget,
    stretch:
      budget.stretch *
      webhookStretch(ctx.lastWebhookAt, now, {
        stretch: ctx.config.webhookPollStretch,
        liveMs: ctx.config.webhookLiveMs,
      }),
  };
  await learnAgentReads(ctx);

  const guards = await ctx.instrument.step("guard", () =>
    runGuards(ctx, {
      now,
      stretch: decision.stretch,
      maxRequests: restAllowedPerCycle(ctx.config.maxRestPerMinute, ctx.config.cycleIntervalMs),
    }),
  );

  const effects = emptyEffects();
  // What the guards saw move for a watched PR is held until this cycle's enrichment has read it
  // again (refresh-runner.ts resolveHeld): one invalidation of what still moved, not the guard's
  // guess now and the snapshot's a moment later (two refreshes of the same answers).
  const held = new Map<string, HeldChange>();
  const heldFor = (key: string, track: { repo: string; number: number }): Effects => {
    let entry = held.get(key);
    if (!entry) {
      entry = {
        repo: track.repo,
        number: track.number,
        before: ctx.index.factsFor(key) ?? null,
        effects: emptyEffects(),
      };
      held.set(key, entry);
    }
    return entry.effects;
  };
  for (const { key, observation } of guards.observations) {
    const track = ctx.index.prs.get(key);
    if (!track) continue;
    const into = heldFor(key, track);
    for (const id of [...track.sessions]) {
      const result = apply(
        ctx,
        id,
        { type: "observe", observation, source: "poll" },
        into,
        "lifecycle:checks-changed",
      );
      if (result?.factsChanged) {
        track.lastChangeAt = now;
        track.patched = true;
      }
    }
  }
  // A guard that moved is a change even when the facts the lifecycle keeps did not (a title, a
  // comment): agents' cached answers about that PR must go, or a vouch would keep them alive.
  for (const [key, why] of guards.changed) {
    const track = ctx.index.prs.get(key);
    if (!track) continue;
    const into = heldFor(key, track);
    const facts = ctx.index.factsFor(key);
    addInvalidation(into, {
      repo: track.repo,
      pr: track.number,
      reason: "lifecycle:guard-moved",
      facets: facetsForGuardReason(why),
      ...(facts ? { headSha: facts.headSha, branch: facts.headRefName } : {}),
    });
  }
  // A change that is news to a session (an event: CI finished, a review came) goes out now, its
  // invalidation first, as always: an agent reacting to the event must read the new answers, and
  // a status must not be visible before its event. Only silent moves wait for the enrichment.
  for (const [key, entry] of held) {
    if (entry.effects.events.length === 0) continue;
    for (const target of entry.effects.invalidate.splice(0)) addInvalidation(effects, target);
    effects.events.push(...entry.effects.events.splice(0));
    held.delete(key);
  }
  // What the repository lists saw move (the PR walk lists only untracked PRs; the issues list
  // lists every item that moved, tracked or not): dropped before the lists are vouched.
  for (const item of guards.listed) {
    addInvalidation(effects, {
      repo: item.repo,
      pr: item.number,
      reason: "lifecycle:list-moved",
      facets: facetsForGuardReason("pr-list"),
      ...(item.branch ? { branch: item.branch } : {}),
    });
  }
  // Workflow runs the Actions guards saw move: those runs' answers, the run lists, their heads'
  // commit checks (the PRs on those heads were added above, as "actions" moves).
  // The checks of watched PRs whose move is held are that PR's own invalidation's to move (after
  // the enrichment, only if they still moved): not moved again here by branch.
  for (const { repo, runs } of guards.runsMoved) {
    const handledBranches: string[] = [];
    for (const [key, entry] of held) {
      // Only where the held move names checks: unread by the enrichment, it moves them itself.
      const checks = entry.effects.invalidate.some((t) => !t.facets || t.facets.includes("checks"));
      const branch = ctx.index.factsFor(key)?.headRefName;
      if (checks && branch && normalizeRepo(entry.repo) === normalizeRepo(repo)) handledBranches.push(branch);
    }
    addInvalidation(effects, {
      repo,
      reason: "lifecycle:runs-moved",
      runs: runs.map((r) => ({ id: r.id, headSha: r.headSha, branch: r.branch })),
      ...(handledBranches.length > 0 ? { handledBranches } : {}),
    });
  }
  const found: PrTarget[] = [];
  for (const { sessionId, number } of guards.detected) {
    const result = apply(
      ctx,
      sessionId,
      { type: "found", number, source: "poll" },
      effects,
      "lifecycle:pr-detected",
    );
    const repo = result?.state.repo;
    if (result?.outcome === "applied" && repo) found.push({ repo, number });
  }
  await emit(ctx, effects);

  const lookup = [...ctx.index.sessions.values()]
    .filter(
      ({ state: s }) =>
        s.prNumber === null && !isTerminalStatus(s.status) && (!s.detectionDone || guards.lookup.has(s.id)),
    )
    .map((entry) => entry.state.id);
  const detection =
    lookup.length > 0
      ? await ctx.instrument.step("batch", () => runDetection(ctx, lookup, "detection"))
      : { queries: 0, points: 0, found: [] };

  const required: PrTarget[] = state.carried.filter((t) => ctx.index.prs.has(prKey(t.repo, t.number)));
  for (const key of guards.changed.keys()) {
    const track = ctx.index.prs.get(key);
    if (track) required.push({ repo: track.repo, number: track.number });
  }
  required.push(...found, ...detection.found);
  const fillers: PrTarget[] = [];
  // Free slots go first to PRs whose checks were patched from a guard since GitHub last computed
  // their rollup and merge state, then to the PRs read longest ago.
  const tracks = [...ctx.index.prs.values()].sort(
    (a, b) => Number(b.patched) - Number(a.patched) || (a.lastRefreshAt ?? 0) - (b.lastRefreshAt ?? 0),
  );
  for (const track of tracks) {
    const facts = ctx.index.factsFor(track.key);
    const target = { repo: track.repo, number: track.number };
    if (!facts) {
      if (backoffOk(track.failures, track.lastRefreshAt, now, ctx.config.cycleIntervalMs))
        required.push(target);
      continue;
    }
    if (facts.state !== "OPEN") continue;
    const backstop = ctx.config.backstopIntervalMs;
    if (backstop > 0 && (track.lastRefreshAt === null || now - track.lastRefreshAt >= backstop))
      required.push(target);
    else fillers.push(target);
  }

  const unmoved = new Set<string>();
  const perBatch = enrichmentPoints(ctx.config.enrichmentBatchSize);
  const maxBatches = Number.isFinite(decision.pointsAllowed)
    ? Math.max(0, Math.floor((decision.pointsAllowed - detection.points) / perBatch))
    : Number.POSITIVE_INFINITY;
  // The refreshes of the guards' moves, submitted just before the enrichment: one merged document.
  await hold?.flush();
  const enrichment = await ctx.instrument.step("batch", () =>
    runEnrichment(ctx, {
      required,
      fillers,
      maxBatches,
      sourceOf: (key) => state.sources.get(key) ?? "poll",
      held,
      unmoved,
    }),
  );
  // Held changes the enrichment did not read (deferred, failed, no data): as the guards saw them.
  const unread = emptyEffects();
  for (const entry of held.values()) {
    for (const target of entry.effects.invalidate) addInvalidation(unread, target);
    unread.events.push(...entry.effects.events);
  }
  await emit(ctx, unread);
  for (const target of required) state.sources.delete(prKey(target.repo, target.number));
  state.carried = enrichment.retry;

  const tickEffects = emptyEffects();
  for (const id of [...ctx.index.sessions.keys()])
    apply(ctx, id, { type: "tick" }, tickEffects, "lifecycle:tick");
  await emit(ctx, tickEffects);
  // PRs whose guards moved but which the enrichment, re-reading them, found unchanged (the move
  // was one already seen, or nothing it or agents read): vouched for like the unmoved ones, so
  // agents' answers about them do not go upstream for a vouch one cycle too old.
  await sendVouches(ctx, new Set([...guards.changed.keys()].filter((key) => !unmoved.has(key))));
  ctx.totals.cycles += 1;

  return {
    startedAt: now,
    durationMs: wallClock() - started,
    sessions: ctx.index.sessions.size,
    prs: ctx.index.prs.size,
    guards: {
      requests: guards.requests,
      notModified: guards.notModified,
      errors: guards.errors,
      moved: guards.changed.size,
      checksApplied: guards.observations.length,
    },
    detection: {
      queries: detection.queries,
      points: detection.points,
      found: found.length + detection.found.length,
    },
    enrichment: {
      queries: enrichment.queries,
      points: enrichment.points,
      prs: enrichment.prs,
      filled: enrichment.filled,
      deferred: enrichment.retry.length,
    },
    events: ctx.totals.events - eventsBefore,
    stretch: decision.stretch,
  };
}
