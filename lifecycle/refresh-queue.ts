/**
 * Re-reads asked for outside the poll loop — a new watch, a webhook — gathered for
 * `webhookDebounceMs` (a watch) or `webhookGatherMs` (a webhook) and then sent as batches, so a spawn storm or a webhook burst costs
 * ceil(PRs / 25) points, not one query each. Every queued item remembers when (in ctx.nextSeq
 * order) it was queued: a query sent after that, by a cycle, has already done the work and the
 * flush skips it. Flushes run one at a time; they may run beside a cycle. The budget holds here
 * too: what a flush cannot afford is carried to the next cycle.
 */
import type { Clock, TimerHandle } from "./clock.js";
import { enrichmentPoints, type PrTarget } from "./core/enrichment-query.js";
import type { EventSource } from "./core/lifecycle-event.js";
import { prKey } from "./core/repo-ref.js";
import { currentBudget, type LifecycleContext } from "./lifecycle-context.js";
import type { CycleState } from "./poll-cycle.js";
import { runDetection, runEnrichment } from "./refresh-runner.js";

export interface RefreshQueueOptions {
  readonly ctx: LifecycleContext;
  readonly cycleState: CycleState;
  readonly clock: Clock;
  /** Saves changed session states after a flush. */
  readonly save: () => Promise<void>;
}

export interface RefreshQueue {
  queuePr(repo: string, number: number, source: EventSource): void;
  queueLookup(sessionId: string): void;
  forget(sessionId: string): void;
  /**
   * Flushes after `delayMs` (once per burst; an earlier due time wins).
   * @defaultValue webhookDebounceMs (watches); webhooks pass webhookGatherMs
   */
  schedule(delayMs?: number): void;
  /** Flushes now and waits. */
  flush(): Promise<void>;
  /** Cancels the timer and waits for a running flush. */
  close(): Promise<void>;
}

export function createRefreshQueue(options: RefreshQueueOptions): RefreshQueue {
  const { ctx, cycleState, clock } = options;
  const pendingPrs = new Map<string, { target: PrTarget; queuedAt: number }>();
  const pendingLookups = new Map<string, number>();
  let timer: TimerHandle | undefined;
  let dueAt = Number.POSITIVE_INFINITY;
  let chain: Promise<unknown> = Promise.resolve();
  let closed = false;

  const run = async () => {
    timer?.cancel();
    timer = undefined;
    dueAt = Number.POSITIVE_INFINITY;
    const lookups = [...pendingLookups]
      .filter(
        ([id, queuedAt]) =>
          ctx.index.sessions.get(id)?.state.prNumber === null && (ctx.lookedUpAt.get(id) ?? 0) < queuedAt,
      )
      .map(([id]) => id);
    pendingLookups.clear();
    const targets = [...pendingPrs.entries()]
      .filter(([key, { queuedAt }]) => (ctx.index.prs.get(key)?.lastRefreshSeq ?? 0) < queuedAt)
      .map(([, { target }]) => target);
    pendingPrs.clear();
    if (lookups.length === 0 && targets.length === 0) return;
    ctx.totals.webhookRefreshes += 1;
    const budget = await currentBudget(ctx, clock.now());
    const detection =
      lookups.length > 0 && budget.pointsAllowed >= 1
        ? await runDetection(ctx, lookups, "webhook")
        : { found: [], points: 0 };
    const required = [...targets, ...detection.found];
    const perBatch = enrichmentPoints(ctx.config.enrichmentBatchSize);
    const enrichment = await runEnrichment(ctx, {
      required,
      fillers: [],
      maxBatches: Number.isFinite(budget.pointsAllowed)
        ? Math.max(0, Math.floor((budget.pointsAllowed - detection.points) / perBatch))
        : Number.POSITIVE_INFINITY,
      sourceOf: (key) => cycleState.sources.get(key) ?? "webhook",
    });
    const retried = new Set(enrichment.retry.map((t) => prKey(t.repo, t.number)));
    for (const target of required) {
      const key = prKey(target.repo, target.number);
      if (!retried.has(key)) cycleState.sources.delete(key);
    }
    cycleState.carried.push(...enrichment.retry);
    await options.save();
  };
  const flush = (): Promise<void> => {
    const next = chain.then(run);
    chain = next.catch((error: unknown) => ctx.logger.error({ err: error }, "lifecycle: refresh failed"));
    return next;
  };

  return {
    queuePr(repo, number, source) {
      const key = prKey(repo, number);
      pendingPrs.set(key, { target: { repo, number }, queuedAt: ctx.nextSeq() });
      cycleState.sources.set(key, source);
    },
    queueLookup(sessionId) {
      pendingLookups.set(sessionId, ctx.nextSeq());
    },
    forget(sessionId) {
      pendingLookups.delete(sessionId);
    },
    schedule(delayMs = ctx.config.webhookDebounceMs) {
      if (closed) return;
      const due = clock.now() + Math.max(0, delayMs);
      if (timer && dueAt <= due) return;
      timer?.cancel();
      dueAt = due;
      timer = clock.setTimeout(
        () => {
          timer = undefined;
          dueAt = Number.POSITIVE_INFINITY;
          flush().catch(() => undefined);
        },
        Math.max(0, delayMs),
      );
    },
    flush,
    async close() {
      closed = true;
      timer?.cancel();
      timer = undefined;
      await chain;
    },
  };
}
