/**
 * Read-only views of the budget: the per-session x-ratelimit-* view the gateway sends on every
 * answer (synchronous, from a snapshot refreshed in the background at most every viewRefreshMs,
 * single-flight per resource), and the operator views behind `ao-broker budget` and
 * `ao-broker sessions` (read fresh).
 */
import type { Logger } from "../../common/index.js";
import { type BudgetPolicy, defaultLimitFor, windowMsFor } from "./budget-policy.js";
import type { ResourceState } from "./budget-state.js";
import { projectSpend } from "./core/projection.js";
import { reserveFraction } from "./core/reserve.js";
import { computeSessionView, type SessionBudgetView } from "./core/session-view.js";

export interface GlobalBudgetView {
  readonly resource: string;
  readonly limit: number;
  readonly remaining: number;
  readonly used: number;
  /** Epoch seconds. */
  readonly reset: number;
  /** True while the numbers are the broker's guess (no answer from GitHub in this window yet). */
  readonly estimated: boolean;
  /** Points or requests reserved by admitted, unsettled requests (all brokers). */
  readonly reserved: number;
  readonly inFlight: number;
  /** Spend at the window's end if the pace so far continues. */
  readonly projectedAtReset: number;
  readonly ratePerHour: number;
  /** Epoch seconds at which the budget runs out at this pace, when before the reset. */
  readonly exhaustsAt: number | undefined;
  readonly activeSessions: number;
}

export interface SessionSpend {
  readonly sessionId: string;
  readonly resource: string;
  /** Charged this window (settled). */
  readonly windowUsed: number;
  /** Charged since the session was first seen. */
  readonly totalUsed: number;
  /** Reserved by its requests in flight. */
  readonly held: number;
  readonly weight: number;
  readonly active: boolean;
  /** Its current fair share of the window (interactive class), as in its x-ratelimit-limit. */
  readonly share: number;
}

/** A caller waiting in `admit()` on this broker, and the rule that holds it back. */
export interface BudgetWait {
  readonly sessionId: string;
  readonly resource: string;
  /** "budget": the window is spent; "fair-share": others need their share; "pace": the window is paced. */
  readonly reason: "budget" | "fair-share" | "pace";
  /** Epoch ms: when it asks again. */
  readonly retryAt: number;
  /** Epoch ms: since when it waits. */
  readonly since: number;
}

export interface BudgetViews {
  sessionView(sessionId: string, resource: string, weight: number): SessionBudgetView;
  globalView(): Promise<GlobalBudgetView[]>;
  sessionSpend(): Promise<SessionSpend[]>;
}

export interface BudgetViewsOptions {
  readonly policy: BudgetPolicy;
  readonly read: (resource: string) => Promise<ResourceState>;
  readonly resources: () => Promise<string[]>;
  /** Local epoch ms: snapshot ages and the view before the first snapshot. */
  readonly now: () => number;
  readonly logger: Logger;
}

/** Resources GitHub always reports, shown even before the first request. */
const ALWAYS = ["core", "graphql"];

export function createBudgetViews(options: BudgetViewsOptions): BudgetViews {
  const { policy } = options;
  const snapshots = new Map<string, { state: ResourceState; at: number }>();
  const refreshing = new Map<string, Promise<void>>();

  const refresh = (resource: string): void => {
    if (refreshing.has(resource)) return;
    const run = options
      .read(resource)
      .then((state) => {
        snapshots.set(resource, { state, at: options.now() });
      })
      .catch((err: unknown) => options.logger.warn({ err, resource }, "budget snapshot refresh failed"))
      .finally(() => refreshing.delete(resource));
    refreshing.set(resource, run);
  };

  const viewOf = (state: ResourceState, sessionId: string, weight: number): SessionBudgetView =>
    computeSessionView({
      resource: state.resource,
      window: state.window,
      reserved: state.reserved,
      active: state.active,
      sessionId,
      weight,
      usedIfInactive: (state.windowSpend.get(sessionId) ?? 0) + (state.held.get(sessionId) ?? 0),
      reserveFraction: reserveFraction(policy.viewClass, policy.reserve),
    });

  return {
    sessionView(sessionId, resource, weight) {
      const snap = snapshots.get(resource);
      const now = options.now();
      if (!snap || now - snap.at >= policy.viewRefreshMs) refresh(resource);
      if (snap) return viewOf(snap.state, sessionId, weight);
      const limit = defaultLimitFor(policy, resource);
      return {
        resource,
        limit,
        remaining: limit,
        used: 0,
        reset: Math.ceil((now + windowMsFor(policy, resource)) / 1000),
        windowLimit: limit,
      };
    },

    async globalView() {
      const names = [...new Set([...ALWAYS, ...(await options.resources())])].sort();
      const states = await Promise.all(names.map((r) => options.read(r)));
      return states.map((state) => {
        snapshots.set(state.resource, { state, at: options.now() });
        const p = projectSpend(state.window, state.now);
        return {
          resource: state.resource,
          limit: state.window.limit,
          remaining: state.window.remaining,
          used: p.used,
          reset: Math.ceil(state.window.resetAt / 1000),
          estimated: state.window.estimated,
          reserved: state.reserved,
          inFlight: state.inFlight,
          projectedAtReset: Math.round(p.projectedAtReset),
          ratePerHour: Math.round(p.ratePerHour),
          exhaustsAt: p.exhaustsAt === undefined ? undefined : Math.ceil(p.exhaustsAt / 1000),
          activeSessions: state.active.length,
        };
      });
    },

    async sessionSpend() {
      const out: SessionSpend[] = [];
      for (const resource of await options.resources()) {
        const state = await options.read(resource);
        snapshots.set(resource, { state, at: options.now() });
        const ids = new Set([
          ...state.totals.keys(),
          ...state.windowSpend.keys(),
          ...state.active.map((a) => a.id),
        ]);
        for (const sessionId of [...ids].sort()) {
          const active = state.active.find((a) => a.id === sessionId);
          const weight = active?.weight ?? state.weights.get(sessionId) ?? 1;
          out.push({
            sessionId,
            resource,
            windowUsed: state.windowSpend.get(sessionId) ?? 0,
            totalUsed: state.totals.get(sessionId) ?? 0,
            held: state.held.get(sessionId) ?? 0,
            weight,
            active: active !== undefined,
            share: viewOf(state, sessionId, weight).limit,
          });
        }
      }
      return out;
    },
  };
}
