/**
 * The lifecycle service the broker composes: the orchestrator asks once ("watch session S on repo
 * R, branch B [, PR N]") and is told, through `ports.publish`, whenever anything about it changes.
 * It runs the poll loop (poll-cycle.ts) every `cycleIntervalMs`, takes webhook-driven refreshes
 * (`refresh`: partial facts applied at once, then a batched re-read after `webhookGatherMs`, only
 * of what the payloads did not carry),
 * keeps watched sessions in a WatchStore so a restart resumes them, and answers `status()` from
 * memory. Cycles never overlap one another; a webhook refresh may run beside a cycle, which is why
 * observations carry versions (core/merge-observation.ts).
 */

import { AoError, type Logger, silentLogger } from "../common/index.js";
import { type Clock, systemClock, type TimerHandle } from "./clock.js";
import { type LifecycleConfig, resolveLifecycleConfig } from "./config.js";
import { normalizeRepo } from "./core/repo-ref.js";
import type { AgentReport } from "./core/session-machine.js";
import { initialSessionState, type SessionState } from "./core/session-state.js";
import type { RefreshTarget } from "./core/webhook-signal.js";
import { LifecycleErrors } from "./errors.js";
import { type LifecycleInstrumentation, NO_INSTRUMENTATION } from "./instrumentation.js";
import {
  apply,
  emit,
  emptyEffects,
  type LifecycleContext,
  type LifecycleTotals,
  newTotals,
} from "./lifecycle-context.js";
import { type CycleReport, type CycleState, runPollCycle } from "./poll-cycle.js";
import type { LifecyclePorts } from "./ports.js";
import { createRefreshQueue } from "./refresh-queue.js";
import { applyRefreshTargets } from "./refresh-targets.js";
import { createSessionIndex } from "./session-index.js";
import { type SessionSummary, summarize, validateWatch, type WatchRequest } from "./session-summary.js";
import type { WatchRecord, WatchStore } from "./watch-store.js";

export interface LifecycleStatus {
  readonly running: boolean;
  readonly sessions: readonly SessionSummary[];
  readonly repos: number;
  readonly prs: number;
  readonly lastCycle: CycleReport | null;
  readonly totals: Readonly<LifecycleTotals>;
  readonly budget: { readonly remaining: number; readonly resetAt: number | null } | null;
}

export interface LifecycleServiceOptions {
  readonly ports: LifecyclePorts;
  readonly store: WatchStore;
  readonly config?: Partial<LifecycleConfig>;
  /** @defaultValue silentLogger() */
  readonly logger?: Logger;
  /** @defaultValue systemClock */
  readonly clock?: Clock;
  /** Measures cycle durations; separate from `clock` so a manual clock still yields real timings. @defaultValue performance.now */
  readonly wallClock?: () => number;
  /** Spans and metrics for cycles and their steps. @defaultValue none */
  readonly instrument?: LifecycleInstrumentation;
}

export interface LifecycleService {
  /** Loads the store and starts the poll loop (the first cycle runs at once). Idempotent. */
  start(): Promise<void>;
  /** Stops the loop, waits for in-flight work, saves state. The store is the caller's to close. */
  close(): Promise<void>;
  /** Idempotent for the same session; a changed repo/branch starts the session afresh. */
  watch(session: WatchRequest): Promise<SessionSummary>;
  unwatch(id: string): Promise<boolean>;
  status(): LifecycleStatus;
  /** Applies a webhook's partial facts now and re-reads the affected sessions after the debounce. */
  refresh(targets: readonly RefreshTarget[]): Promise<{ readonly sessions: readonly string[] }>;
  /** The orchestrator tells what the agent does (activity, waiting for input, exited, ...). */
  report(id: string, report: AgentReport): Promise<SessionSummary>;
  /** Runs one cycle now (after any running one) and returns its report. For tests and benches. */
  runCycle(): Promise<CycleReport>;
  /** Sends pending webhook/watch refreshes now and waits for them. */
  flush(): Promise<void>;
}

export function createLifecycleService(options: LifecycleServiceOptions): LifecycleService {
  const config = resolveLifecycleConfig(options.config);
  const clock = options.clock ?? systemClock;
  const wallClock = options.wallClock ?? (() => performance.now());
  let seq = 0;
  const ctx: LifecycleContext = {
    ports: options.ports,
    instrument: options.instrument ?? NO_INSTRUMENTATION,
    config,
    logger: options.logger ?? silentLogger(),
    clock,
    index: createSessionIndex(),
    totals: newTotals(),
    dirty: new Set(),
    unsettled: new Map(),
    lastRateLimit: undefined,
    lastWebhookAt: null,
    spend: [],
    restSpend: [],
    lookedUpAt: new Map(),
    nextSeq: () => {
      seq += 1;
      return seq;
    },
  };
  const cycleState: CycleState = { carried: [], sources: new Map() };
  let loaded: Promise<void> | undefined;
  let running = false;
  let closed = false;
  let loopTimer: TimerHandle | undefined;
  let cycleChain: Promise<unknown> = Promise.resolve();
  let lastCycle: CycleReport | null = null;

  const ensureOpen = () => {
    if (closed) throw new AoError(LifecycleErrors.AO_ERR_LIFECYCLE_CLOSED, "the lifecycle service is closed");
  };
  const ensureLoaded = () => {
    loaded ??= options.store.load().then(({ watches, states }) => {
      const byId = new Map(states.map((s) => [s.id, s]));
      const now = clock.now();
      for (const watch of watches) {
        const stored = byId.get(watch.id);
        const fits =
          stored &&
          normalizeRepo(stored.repo) === normalizeRepo(watch.repo) &&
          stored.branch === watch.branch;
        ctx.index.add(
          watch,
          fits
            ? stored
            : initialSessionState(
                { id: watch.id, repo: watch.repo, branch: watch.branch, prNumber: watch.pr },
                now,
              ),
        );
      }
      ctx.logger.info({ sessions: watches.length }, "lifecycle: watched sessions loaded");
    });
    return loaded;
  };
  const save = async () => {
    if (ctx.dirty.size === 0) return;
    const ids = [...ctx.dirty];
    ctx.dirty.clear();
    const states = ids
      .map((id) => ctx.index.sessions.get(id)?.state)
      .filter((s): s is SessionState => s !== undefined);
    try {
      await options.store.putStates(states);
    } catch (error) {
      for (const id of ids) ctx.dirty.add(id);
      ctx.logger.warn({ err: error }, "lifecycle: saving session states failed; will retry");
    }
  };

  const cycle = (): Promise<CycleReport> => {
    const next = cycleChain.then(async () => {
      await ensureLoaded();
      const report = await ctx.instrument.cycle(
        { sessions: ctx.index.sessions.size, prs: ctx.index.prs.size },
        () => runPollCycle(ctx, cycleState, wallClock),
      );
      ctx.instrument.cycleDone(report);
      await save();
      lastCycle = report;
      ctx.logger.debug({ report }, "lifecycle: cycle done");
      return report;
    });
    cycleChain = next.catch(() => undefined);
    return next;
  };
  const loop = () => {
    if (!running) return;
    const startedAt = clock.now();
    cycle()
      .catch((error: unknown) => ctx.logger.error({ err: error }, "lifecycle: cycle failed"))
      .finally(() => {
        if (!running) return;
        const wait = Math.max(0, config.cycleIntervalMs - (clock.now() - startedAt));
        loopTimer = clock.setTimeout(loop, wait);
      });
  };

  const queue = createRefreshQueue({ ctx, cycleState, clock, save });

  return {
    async start() {
      ensureOpen();
      await ensureLoaded();
      if (running) return;
      running = true;
      loop();
    },

    async close() {
      if (closed) return;
      closed = true;
      running = false;
      loopTimer?.cancel();
      await cycleChain;
      await queue.close();
      await save();
    },

    async watch(session) {
      ensureOpen();
      validateWatch(session);
      await ensureLoaded();
      const existing = ctx.index.sessions.get(session.id);
      const sameTarget =
        existing &&
        normalizeRepo(existing.state.repo) === normalizeRepo(session.repo) &&
        existing.state.branch === session.branch;
      if (existing && sameTarget && (session.pr === undefined || session.pr === existing.state.prNumber)) {
        return summarize(existing.watch, existing.state);
      }
      const now = clock.now();
      const watch: WatchRecord = {
        id: session.id,
        repo: session.repo,
        branch: session.branch,
        ...(session.pr === undefined ? {} : { pr: session.pr }),
        ...(session.projectId === undefined ? {} : { projectId: session.projectId }),
        watchedAt: existing && sameTarget ? existing.watch.watchedAt : now,
      };
      // A changed target (or an explicitly different PR) starts the session afresh; its event
      // sequence continues so event ids stay unique.
      const fresh = initialSessionState(
        { id: session.id, repo: session.repo, branch: session.branch, prNumber: session.pr },
        now,
      );
      ctx.index.add(watch, existing ? { ...fresh, eventSeq: existing.state.eventSeq } : fresh);
      const entry = ctx.index.sessions.get(session.id);
      if (!entry)
        throw new AoError(LifecycleErrors.AO_ERR_LIFECYCLE_UNKNOWN_SESSION, `session ${session.id} vanished`);
      await options.store.putWatch(watch, entry.state);
      ctx.dirty.delete(session.id);
      if (entry.state.prNumber !== null) queue.queuePr(entry.state.repo, entry.state.prNumber, "watch");
      else queue.queueLookup(session.id);
      queue.schedule();
      return summarize(entry.watch, entry.state);
    },

    async unwatch(id) {
      ensureOpen();
      await ensureLoaded();
      const removed = ctx.index.remove(id);
      queue.forget(id);
      ctx.lookedUpAt.delete(id);
      ctx.dirty.delete(id);
      await options.store.deleteWatch(id);
      return removed;
    },

    status() {
      const sessions = [...ctx.index.sessions.values()]
        .map((e) => summarize(e.watch, e.state))
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      return {
        running,
        sessions,
        repos: ctx.index.repos.size,
        prs: ctx.index.prs.size,
        lastCycle,
        totals: { ...ctx.totals },
        budget: ctx.lastRateLimit ? { ...ctx.lastRateLimit } : null,
      };
    },

    async refresh(targets) {
      ensureOpen();
      await ensureLoaded();
      // Every refresh is a webhook delivery: while they keep coming, the guards are a backstop.
      ctx.lastWebhookAt = ctx.clock.now();
      const effects = emptyEffects();
      const { matched, queued } = applyRefreshTargets(ctx, queue, targets, effects);
      await emit(ctx, effects);
      // Gathered over webhookGatherMs: a burst of deliveries about one PR is one re-read.
      if (queued) queue.schedule(config.webhookGatherMs);
      return { sessions: [...matched] };
    },

    async report(id, kind) {
      ensureOpen();
      await ensureLoaded();
      const entry = ctx.index.sessions.get(id);
      if (!entry) {
        throw new AoError(LifecycleErrors.AO_ERR_LIFECYCLE_UNKNOWN_SESSION, `no watched session "${id}"`, {
          httpStatus: 404,
          rpcCode: -32602,
        });
      }
      const effects = emptyEffects();
      apply(ctx, id, { type: "report", report: kind }, effects, "lifecycle:report");
      await emit(ctx, effects);
      await save();
      const after = ctx.index.sessions.get(id) ?? entry;
      return summarize(after.watch, after.state);
    },

    runCycle() {
      ensureOpen();
      return cycle();
    },

    flush() {
      return queue.flush();
    },
  };
}
