/**
 * The configurable FaultInjector behind `POST /_sim/faults` and `sim.setFaults({ rules })`: it
 * asks the plan's rules (core/fault-rules.ts) what to do with each GitHub-facing request and
 * acts it out at the HTTP level. Injected answers bypass the simulator's stats (they never reached
 * "GitHub"); the plan keeps its own counters, served by `GET /_sim/faults`.
 */
import { secondaryRateLimitBody } from "../../../github/index.js";
import { type FaultPlan, type FaultRuleReport, FaultRuleSet } from "../../core/fault-rules.js";
import type { PrimaryResource } from "../../core/primary-limits.js";
import type { SimState } from "../../sim-state.js";
import { errorResponse, jsonResponse } from "../respond.js";
import type { SimHandler, SimRequest, SimResponse } from "../types.js";
import type { FaultInjector } from "./faults.js";

export interface FaultPlanInjector extends FaultInjector {
  readonly plan: FaultPlan;
  report(): FaultRuleReport[];
}

export interface FaultPlanDeps {
  /** Marks a primary bucket's current window spent. */
  readonly exhaust: (resource: PrimaryResource) => void;
  /** @defaultValue the plan's seeded generator */
  readonly random?: () => number;
}

const DROP: SimResponse = { status: 0, headers: {}, destroy: true };

const STATUS_TEXT: Record<number, string> = {
  500: "Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

function later<T>(ms: number, value: () => T | Promise<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      Promise.resolve().then(value).then(resolve, reject);
    }, ms);
    timer.unref();
  });
}

export function createFaultPlan(plan: FaultPlan, deps: FaultPlanDeps): FaultPlanInjector {
  const rules = new FaultRuleSet(plan, deps.random);
  return {
    plan,
    report: () => rules.report(),
    intercept(request: SimRequest, next: SimHandler): Promise<SimResponse> | undefined {
      const action = rules.decide(request.method, request.path);
      if (!action) return undefined;
      const graphql = request.path === "/graphql";
      switch (action.type) {
        case "status":
          return Promise.resolve(
            errorResponse(action.status, action.message ?? STATUS_TEXT[action.status] ?? "Server Error", {
              outcome: action.status >= 500 ? "server_error" : "client_error",
            }),
          );
        case "timeout":
          return later(action.afterMs, () => DROP);
        case "slow":
          return later(action.delayMs, () => next(request));
        case "reset":
          return Promise.resolve(DROP);
        case "secondary-limit":
          return Promise.resolve(
            jsonResponse(403, secondaryRateLimitBody(request.id), {
              headers: { "retry-after": String(action.retryAfterSeconds) },
              resource: graphql ? "graphql" : "core",
              outcome: "secondary_limited",
            }),
          );
        case "exhaust":
          deps.exhaust(action.resource ?? (graphql ? "graphql" : "core"));
          return next(request);
      }
    },
  };
}

/** A plan's injector over a simulator's own primary limits (what the admin API and setFaults install). */
export function faultPlanFor(state: SimState, plan: FaultPlan): FaultPlanInjector {
  return createFaultPlan(plan, { exhaust: (resource) => state.primary.exhaust(resource, state.now()) });
}
