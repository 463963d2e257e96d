/**
 * Starts a simulator: resolves options, builds the state (world from the scenario, limiters,
 * clock), assembles the pipeline and listens. The returned handle is what tests and other
 * folders drive: read truth from `world`, move time with `advance()`, inject changes with
 * `inject()`, read the accounting with `stats()`, and `close()` when done.
 */
import { AoError } from "../common/index.js";
import { rateLimitHeaders } from "../github/index.js";
import { applyEvent, type EventResult } from "./core/apply-event.js";
import { type FaultPlanInput, type FaultRuleReport, parseFaultPlan } from "./core/fault-rules.js";
import { parseSimEvent, type SimEvent } from "./core/scenario-schema.js";
import type { World } from "./core/world.js";
import { SimErrors } from "./errors.js";
import { type FaultPlanInjector, faultPlanFor } from "./http/layers/fault-plan.js";
import type { FaultInjector } from "./http/layers/faults.js";
import { createPipeline } from "./http/pipeline.js";
import { startSimServer } from "./http/server.js";
import { checkWebhookTarget, resolveOptions, type SimulatorOptions } from "./options.js";
import { SimState } from "./sim-state.js";
import type { SimStats } from "./stats.js";
import { webhooksForChange } from "./webhooks/webhook-payloads.js";
import {
  WEBHOOK_TARGET_DEFAULTS,
  WebhookSender,
  type WebhookStats,
  type WebhookTarget,
} from "./webhooks/webhook-sender.js";

export interface RunningSimulator {
  /** e.g. "http://127.0.0.1:3990" (no trailing slash). */
  readonly url: string;
  readonly port: number;
  /** The accepted PAT. */
  readonly token: string;
  /** The live world (replaced by reset() and by loading a scenario: read it through this getter). */
  readonly world: World;
  /** Same object as GET /_sim/stats. */
  stats(): SimStats;
  /** Same as POST /_sim/reset: world back to the scenario's start, counters and windows zeroed. */
  reset(): void;
  /** Moves the scenario clock forward: scheduled CI progresses, rate-limit windows roll. */
  advance(ms: number): Promise<void>;
  /** Same as POST /_sim/events: applies one event now. Throws AoError on an invalid event. */
  inject(event: SimEvent): EventResult;
  /** The scenario clock, epoch ms. */
  now(): number;
  /**
   * Installs a fault plan (`{ rules, seed? }`, the body of POST /_sim/faults) or any injector;
   * undefined removes it. Returns the injector now in force (wrap it to observe every request).
   * Throws AoError on an invalid plan.
   */
  setFaults(faults: FaultInjector | FaultPlanInput | undefined): FaultInjector | undefined;
  /** The installed plan's per-rule counters (GET /_sim/faults); undefined without a plan. */
  faultReport(): FaultRuleReport[] | undefined;
  /** Webhook deliveries so far (options.webhooks); undefined when none are configured. */
  webhookStats(): WebhookStats | undefined;
  /**
   * Starts (or replaces, or with undefined stops) webhook deliveries, as options.webhooks: for a
   * receiver that starts after the simulator (a broker that needs the simulator's URL first).
   * Throws AoError on an invalid target. Deliveries still queued for the old target are dropped.
   */
  setWebhooks(target: WebhookTarget | undefined): Promise<void>;
  /** Resolves once every webhook queued so far was delivered or given up. */
  flushWebhooks(): Promise<void>;
  close(): Promise<void>;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const resolved = resolveOptions(options);
  const state = new SimState({
    scenario: resolved.scenario,
    limits: resolved.limits,
    windowMs: resolved.windowMs,
    secondary: resolved.secondary,
    clock: resolved.clock,
    token: resolved.token,
    webBase: resolved.webUrl,
    cacheResults: resolved.cacheResults,
  });
  state.faults = resolved.faults;
  let sender: WebhookSender | undefined;
  let apiBase: string = WEBHOOK_TARGET_DEFAULTS.apiBase;
  const useWebhooks = (target: WebhookTarget | undefined) => {
    sender = target ? new WebhookSender(target) : undefined;
    apiBase = (target?.apiBase ?? WEBHOOK_TARGET_DEFAULTS.apiBase).replace(/\/+$/, "");
  };
  useWebhooks(resolved.webhooks);
  const stopWebhooks = state.onChange((change) => {
    if (!sender) return;
    // Built now (the payload is the object as of this change), sent later by the sender's pump.
    const shape = { world: state.world, api: apiBase, web: state.webBase };
    sender.enqueue(webhooksForChange(state.world, shape, change));
  });
  const pipeline = createPipeline(state, {
    latency: { latencyMs: resolved.latencyMs, jitterMs: resolved.jitterMs, random: resolved.random },
    faults: () => state.faults,
  });
  const server = await startSimServer(pipeline, {
    host: resolved.host,
    port: resolved.port,
    maxBodyBytes: resolved.maxBodyBytes,
    webHost: new URL(resolved.webUrl).hostname,
    now: state.now,
    errorHeaders: () => rateLimitHeaders(state.primary.snapshot("core", state.now())),
  }).catch((error: unknown) => {
    throw new AoError(
      SimErrors.AO_ERR_SIM_LISTEN_FAILED,
      `the simulator cannot listen on ${resolved.host}:${resolved.port}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  });
  const host = resolved.host.includes(":") ? `[${resolved.host}]` : resolved.host;
  let closed = false;
  return {
    url: `http://${host}:${server.port}`,
    port: server.port,
    token: resolved.token,
    get world() {
      return state.world;
    },
    stats: () => {
      state.tick();
      return state.statsSnapshot();
    },
    reset: () => state.reset(),
    advance: async (ms) => {
      state.advance(ms);
    },
    inject: (event) => {
      const parsed = parseSimEvent(event);
      if (!parsed.ok)
        throw new AoError(SimErrors.AO_ERR_SIM_SCENARIO_INVALID, `invalid event:\n${parsed.message}`);
      state.tick();
      return applyEvent(
        { world: state.world, engine: state.engine, defaultRepo: state.defaultRepo },
        parsed.value,
      );
    },
    now: state.now,
    setFaults: (faults) => {
      if (faults === undefined || "intercept" in faults) {
        state.faults = faults;
        return faults;
      }
      const parsed = parseFaultPlan(faults);
      if (!parsed.ok)
        throw new AoError(SimErrors.AO_ERR_SIM_SCENARIO_INVALID, `invalid fault plan:\n${parsed.message}`);
      state.faults = faultPlanFor(state, parsed.value);
      return state.faults;
    },
    faultReport: () => (state.faults as Partial<FaultPlanInjector> | undefined)?.report?.(),
    webhookStats: () => sender?.stats(),
    setWebhooks: async (target) => {
      if (target) checkWebhookTarget(target);
      const old = sender;
      useWebhooks(target);
      await old?.close();
    },
    flushWebhooks: async () => {
      await sender?.flush();
    },
    close: async () => {
      if (closed) return;
      closed = true;
      stopWebhooks();
      await sender?.close();
      await server.close();
    },
  };
}
