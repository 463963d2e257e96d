/**
 * The budget gate: decides WHETHER and WHEN a request may spend GitHub budget.
 *
 * - Global buckets per resource follow GitHub's own numbers (observe(), and settle() with the
 *   answer's report); a reserve per class is kept back; the rest is shared by max-min fairness
 *   among active sessions with weights (core/admission.ts has the rule, docs/budget.md the maths).
 * - Every decision is one atomic Lua script over keys in one hash slot, so any number of brokers
 *   sharing the Redis enforce one budget. Reservations expire, so a crashed broker frees its own.
 * - tryAdmit() answers at once ("would have to wait until T"), so the pipeline can serve stale
 *   instead; admit() waits until refill — woken by a "budget freed" message or every pollMs —
 *   and gives up at the caller's deadline with AO_ERR_BUDGET_EXHAUSTED.
 * - sessionView() is called on every gateway answer, so it is synchronous and reads a snapshot
 *   refreshed in the background at most every viewRefreshMs.
 *
 * Invariant: nothing here is the only copy of any budget state; this object holds connections,
 * waiters and a view cache only.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { AoError, type Logger, silentLogger } from "../../common/index.js";
import type { RateLimitResource, RateLimitSnapshot } from "../../github/index.js";
import type { PriorityClass } from "../pipeline/types.js";
import { LuaScripts } from "../redis/lua-scripts.js";
import { createRedisClient } from "../redis/redis-url.js";
import type { BudgetClock } from "./budget-clock.js";
import {
  type BudgetPolicy,
  type BudgetPolicyInput,
  defaultLimitFor,
  resolveBudgetPolicy,
  windowMsFor,
} from "./budget-policy.js";
import {
  budgetKeys,
  freedChannel,
  parseReadBudgetReply,
  type ResourceState,
  resourcesKey,
} from "./budget-state.js";
import {
  budgetBadRequest,
  validateCost,
  validateResource,
  validateSessionId,
  validateWeight,
} from "./budget-validation.js";
import {
  type BudgetViews,
  type BudgetWait,
  createBudgetViews,
  type GlobalBudgetView,
  type SessionSpend,
} from "./budget-views.js";
import { BudgetWaiters } from "./budget-waiters.js";
import type { AdmissionReason } from "./core/admission.js";
import { isFairShareExempt, reserveFraction } from "./core/reserve.js";
import type { SessionBudgetView } from "./core/session-view.js";
import { BudgetErrors } from "./errors.js";

export interface BudgetGateOptions {
  /** Redis location (redis://, rediss://, unix://). */
  readonly redis: string;
  /** Key prefix; brokers sharing one budget use the same. @defaultValue "aob" */
  readonly prefix?: string;
  readonly logger?: Logger;
  /** Injected time (tests). @defaultValue Redis TIME in scripts, real timers for waits */
  readonly clock?: BudgetClock;
  readonly policy?: BudgetPolicyInput;
  /** Shown in Redis CLIENT LIST. @defaultValue "aob:budget" */
  readonly connectionName?: string;
}

export interface AdmitRequest {
  readonly sessionId: string;
  /** Fair-share weight, > 0. @defaultValue 1 */
  readonly weight?: number;
  readonly priority: PriorityClass;
  readonly resource: RateLimitResource;
  /** Estimated cost: GraphQL points (computeQueryCost) or 1 per REST request; 0 = free. */
  readonly cost: number;
  /** Epoch ms after which admit() stops waiting (same clock as the gate). */
  readonly deadlineAt: number;
  /**
   * Parent budget: sessions of one group take part in fair share as one participant
   * (docs/decisions/0008). @defaultValue none
   */
  readonly group?: string | undefined;
}

export interface Admission {
  readonly id: string;
  readonly sessionId: string;
  readonly resource: RateLimitResource;
  readonly priority: PriorityClass;
  /** Reserved (estimated, rounded up) cost. */
  readonly cost: number;
  readonly reason: AdmissionReason | "free";
  readonly admittedAt: number;
  /** Time spent waiting in admit(). */
  readonly waitedMs: number;
}

export interface BudgetRefusal {
  readonly admitted: false;
  readonly reason: "budget" | "fair-share" | "pace";
  /** Epoch ms worth trying again at: the reset for "budget", the pace's time for "pace", now for "fair-share". */
  readonly retryAt: number;
  /** The soonest the request could pass even if every in-flight reservation were released. */
  readonly earliestAt: number;
  readonly now: number;
  readonly limit: number;
  readonly remaining: number;
  /** Epoch ms. */
  readonly resetAt: number;
  readonly share: number;
  readonly used: number;
}

export type AdmitDecision = { readonly admitted: true; readonly admission: Admission } | BudgetRefusal;

export interface SettleOutcome {
  /** What GitHub charged: GraphQL points or 1 per REST request; 0 for a 304, a hit or a failure. */
  readonly cost: number;
  /** GitHub's report from the same answer (x-ratelimit-* headers or the GraphQL rateLimit object). */
  readonly rateLimit?: RateLimitSnapshot | undefined;
  /** Charge these sessions instead of the admission's own (a batched query's cost split). */
  readonly charges?: readonly { readonly sessionId: string; readonly cost: number }[] | undefined;
}

const REASONS: Record<string, AdmissionReason> = {
  "1": "exempt",
  "2": "within-share",
  "3": "surplus",
  "4": "budget",
  "5": "fair-share",
  "6": "pace",
};
/** How soon a caller refused for fair share asks again (a wake-up may come sooner). */
const FAIR_SHARE_RETRY_MS = 20;
const SCRIPTS = [
  "admitBudget-5.lua",
  "settleBudget-5.lua",
  "observeBudget-5.lua",
  "readBudget-5.lua",
  "forgetBudgetSession-5.lua",
];

export class BudgetGate {
  readonly policy: BudgetPolicy;
  readonly #options: BudgetGateOptions;
  readonly #prefix: string;
  readonly #logger: Logger;
  readonly #clock: BudgetClock | undefined;
  #redis: Redis | undefined;
  #sub: Redis | undefined;
  #scripts: LuaScripts | undefined;
  #views: BudgetViews | undefined;
  readonly #waiting = new Map<symbol, BudgetWait>();
  readonly #knownResources = new Set<string>();
  readonly #waiters: BudgetWaiters;
  readonly #closing = new AbortController();
  #started = false;

  /** Creates and starts a gate. */
  static async create(options: BudgetGateOptions): Promise<BudgetGate> {
    const gate = new BudgetGate(options);
    await gate.start();
    return gate;
  }

  constructor(options: BudgetGateOptions) {
    this.#options = options;
    this.#prefix = options.prefix ?? "aob";
    this.#logger = (options.logger ?? silentLogger()).child({ component: "budget" });
    this.#clock = options.clock;
    this.policy = resolveBudgetPolicy(options.policy);
    this.#waiters = new BudgetWaiters(options.clock);
  }

  async start(): Promise<void> {
    if (this.#started) return;
    const name = this.#options.connectionName ?? "aob:budget";
    this.#redis = createRedisClient(this.#options.redis, { connectionName: name });
    this.#sub = createRedisClient(this.#options.redis, { connectionName: `${name}:sub` });
    this.#scripts = new LuaScripts(this.#redis, SCRIPTS, BudgetErrors.AO_ERR_BUDGET_SCRIPT_FAILED);
    this.#sub.on("message", (_channel: string, resource: string) => this.#waiters.wake(resource));
    await this.#sub.subscribe(freedChannel(this.#prefix));
    this.#views = createBudgetViews({
      policy: this.policy,
      read: (resource) => this.readState(resource),
      resources: () => this.#resources(),
      now: () => this.#clock?.now() ?? Date.now(),
      logger: this.#logger,
    });
    this.#started = true;
  }

  /** Stops waiting callers (AO_ERR_BUDGET_CLOSED) and closes the connections. */
  async close(): Promise<void> {
    if (this.#closing.signal.aborted) return;
    this.#closing.abort();
    this.#waiters.wakeAll();
    await Promise.allSettled([this.#sub?.quit(), this.#redis?.quit()]);
  }

  /** One attempt, never waits: admitted, or refused with the time worth trying again. */
  async tryAdmit(request: AdmitRequest): Promise<AdmitDecision> {
    const weight = request.weight ?? 1;
    validateSessionId(request.sessionId);
    validateResource(request.resource);
    validateWeight(weight);
    validateCost(request.cost);
    if (request.group !== undefined) validateSessionId(request.group);
    const { scripts } = this.#live();
    const id = randomUUID();
    const base = { id, sessionId: request.sessionId, resource: request.resource, priority: request.priority };
    if (request.cost === 0) {
      const now = this.#clock?.now() ?? Date.now();
      return {
        admitted: true,
        admission: { ...base, cost: 0, reason: "free", admittedAt: now, waitedMs: 0 },
      };
    }
    await this.#remember(request.resource);
    const cost = Math.ceil(request.cost);
    const p = this.policy;
    const reply = (await scripts.run("admitBudget", budgetKeys(this.#prefix, request.resource), [
      ...this.#common(request.resource),
      request.sessionId,
      weight,
      cost,
      reserveFraction(request.priority, p.reserve),
      isFairShareExempt(request.priority) ? 1 : 0,
      id,
      p.reservationTtlMs,
      p.activeMs,
      p.hungryMs,
      p.claimHeadroom,
      p.claimFloorFraction,
      p.minRateElapsedMs,
      request.group ?? "",
      p.pace.burstFraction,
      p.pace.keepFraction,
      p.pace.burstMin,
    ])) as string[];
    const now = Number(reply[2]);
    const reason = REASONS[reply[1]!] ?? "budget";
    if (reply[0] === "1") {
      return { admitted: true, admission: { ...base, cost, reason, admittedAt: now, waitedMs: 0 } };
    }
    return {
      admitted: false,
      reason: reason === "fair-share" || reason === "pace" ? reason : "budget",
      retryAt: Number(reply[3]),
      earliestAt: Number(reply[13] ?? reply[3]),
      now,
      limit: Number(reply[4]),
      remaining: Number(reply[5]),
      resetAt: Number(reply[6]),
      share: Number(reply[10]),
      used: Number(reply[12]),
    };
  }

  /**
   * Waits until the request may spend, or its deadline passes (AO_ERR_BUDGET_EXHAUSTED, with
   * what the gateway needs for GitHub's rate-limit answer in `data`).
   */
  async admit(request: AdmitRequest, options: { readonly signal?: AbortSignal } = {}): Promise<Admission> {
    const token = Symbol("wait");
    try {
      return await this.#admitWaiting(request, options, token);
    } finally {
      this.#waiting.delete(token);
    }
  }

  /** This broker's callers waiting in `admit()` now, and for which rule (oldest first). */
  waiting(): BudgetWait[] {
    return [...this.#waiting.values()].sort((a, b) => a.since - b.since);
  }

  async #admitWaiting(
    request: AdmitRequest,
    options: { readonly signal?: AbortSignal },
    token: symbol,
  ): Promise<Admission> {
    let startedAt: number | undefined;
    for (;;) {
      this.#throwIfStopped(options.signal);
      const decision = await this.tryAdmit(request);
      if (decision.admitted) {
        const waitedMs = startedAt === undefined ? 0 : Math.max(0, decision.admission.admittedAt - startedAt);
        return { ...decision.admission, waitedMs };
      }
      startedAt ??= decision.now;
      // Predictable: even with every reservation released it could not pass before the deadline,
      // so the caller hears it now, with when to come back, instead of after its whole deadline.
      const predicted = decision.earliestAt > request.deadlineAt;
      if (decision.now >= request.deadlineAt || predicted) {
        throw budgetRefused(request.resource, decision, decision.now - startedAt, predicted);
      }
      // A fair-share refusal names no time (it lifts when a hungry session has been served): look
      // again soon, not in a 1 ms loop that would keep Redis busy for every waiting greedy caller.
      const retryAt =
        decision.reason === "fair-share" ? decision.now + FAIR_SHARE_RETRY_MS : decision.retryAt;
      const wakeAt = Math.min(retryAt, decision.now + this.policy.pollMs, request.deadlineAt);
      this.#waiting.set(token, {
        sessionId: request.sessionId,
        resource: request.resource,
        reason: decision.reason,
        retryAt,
        since: startedAt,
      });
      this.#logger.debug(
        {
          sessionId: request.sessionId,
          resource: request.resource,
          reason: decision.reason,
          waitMs: wakeAt - decision.now,
        },
        "waiting for budget",
      );
      await this.#waiters.wait(request.resource, Math.max(1, wakeAt - decision.now), options.signal);
    }
  }

  /** Settles an admission with what the request really cost (0 for a 304 or a cache hit). */
  async settle(admission: Admission, outcome: number | SettleOutcome): Promise<void> {
    const o: SettleOutcome = typeof outcome === "number" ? { cost: outcome } : outcome;
    validateCost(o.cost, "settle cost");
    const charges = o.charges ?? [{ sessionId: admission.sessionId, cost: o.cost }];
    for (const c of charges) {
      validateSessionId(c.sessionId);
      validateCost(c.cost, "charge");
    }
    let report = o.rateLimit;
    if (report && report.resource !== admission.resource) {
      await this.observe(report);
      report = undefined;
    }
    if (admission.cost === 0 && o.cost === 0 && !report) return;
    const { scripts } = this.#live();
    await scripts.run("settleBudget", budgetKeys(this.#prefix, admission.resource), [
      ...this.#common(admission.resource),
      admission.cost > 0 ? `${admission.id}|${admission.sessionId}|${admission.cost}` : "",
      admission.cost,
      o.cost,
      report ? 1 : 0,
      report ? report.limit : 0,
      report ? report.remaining : 0,
      report ? report.reset * 1000 : 0,
      ...charges.flatMap((c) => [c.sessionId, c.cost]),
    ]);
  }

  /** Gives an admission back unspent (the request failed before GitHub charged anything). */
  async release(admission: Admission): Promise<void> {
    await this.settle(admission, { cost: 0 });
  }

  /** Takes in GitHub's report of a bucket (headers or GraphQL rateLimit; reset in epoch seconds). */
  async observe(snapshot: RateLimitSnapshot): Promise<void> {
    validateResource(snapshot.resource);
    const { limit, remaining, reset } = snapshot;
    if (![limit, remaining, reset].every((x) => Number.isFinite(x) && x >= 0)) {
      throw budgetBadRequest("a rate-limit report needs finite limit, remaining and reset");
    }
    const { scripts } = this.#live();
    await this.#remember(snapshot.resource);
    await scripts.run("observeBudget", budgetKeys(this.#prefix, snapshot.resource), [
      ...this.#common(snapshot.resource),
      limit,
      remaining,
      reset * 1000,
    ]);
  }

  /** The session's own GitHub-style view (its fair share as limit), from a snapshot ≤ viewRefreshMs old. */
  sessionView(sessionId: string, resource: RateLimitResource, weight = 1): SessionBudgetView {
    return this.#live().views.sessionView(sessionId, resource, weight);
  }

  /** Per resource: GitHub's bucket, reservations, active sessions and the projection to the reset. */
  async globalView(): Promise<GlobalBudgetView[]> {
    return this.#live().views.globalView();
  }

  /** Per session and resource: spend this window and in total, share, activity. */
  async sessionSpend(): Promise<SessionSpend[]> {
    return this.#live().views.sessionSpend();
  }

  /** Forgets a closed session everywhere (its in-flight reservations run out normally). */
  async forgetSession(sessionId: string): Promise<void> {
    validateSessionId(sessionId);
    const { scripts } = this.#live();
    for (const resource of await this.#resources()) {
      await scripts.run("forgetBudgetSession", budgetKeys(this.#prefix, resource), [sessionId]);
    }
  }

  /** Fresh state of one resource (housekeeping included), for views and tests. */
  async readState(resource: RateLimitResource): Promise<ResourceState> {
    validateResource(resource);
    const { scripts } = this.#live();
    const reply = await scripts.run("readBudget", budgetKeys(this.#prefix, resource), [
      ...this.#common(resource),
      this.policy.activeMs,
    ]);
    return parseReadBudgetReply(resource, reply);
  }

  #common(resource: string): (string | number)[] {
    return [
      this.#clock ? this.#clock.now() : 0,
      defaultLimitFor(this.policy, resource),
      windowMsFor(this.policy, resource),
      this.policy.resetMarginMs,
      freedChannel(this.#prefix),
      resource,
    ];
  }

  #live(): { redis: Redis; scripts: LuaScripts; views: BudgetViews } {
    if (this.#closing.signal.aborted || !this.#redis || !this.#scripts || !this.#views) {
      throw new AoError(
        BudgetErrors.AO_ERR_BUDGET_CLOSED,
        this.#closing.signal.aborted ? "budget gate is closed" : "budget gate was not started",
        { httpStatus: 503 },
      );
    }
    return { redis: this.#redis, scripts: this.#scripts, views: this.#views };
  }

  async #remember(resource: string): Promise<void> {
    if (this.#knownResources.has(resource)) return;
    await this.#live().redis.sadd(resourcesKey(this.#prefix), resource);
    this.#knownResources.add(resource);
  }

  async #resources(): Promise<string[]> {
    const stored = await this.#live().redis.smembers(resourcesKey(this.#prefix));
    return [...new Set([...stored, ...this.#knownResources])].sort();
  }

  #throwIfStopped(signal: AbortSignal | undefined): void {
    if (this.#closing.signal.aborted) {
      throw new AoError(BudgetErrors.AO_ERR_BUDGET_CLOSED, "budget gate closed while waiting", {
        httpStatus: 503,
      });
    }
    if (signal?.aborted) {
      throw new AoError(BudgetErrors.AO_ERR_BUDGET_ABORTED, "gave up waiting for budget", {
        httpStatus: 503,
        cause: signal.reason,
      });
    }
  }
}

/**
 * AO_ERR_BUDGET_EXHAUSTED with what the gateway needs for GitHub's own answer (docs/errors.md):
 * the window spent ("budget": 403, x-ratelimit-reset) or the broker pacing / sharing it ("pace",
 * "fair-share": 429 with retry-after, as GitHub's secondary limits); IPC callers get the same data.
 */
function budgetRefused(
  resource: string,
  refusal: BudgetRefusal,
  waitedMs: number,
  predicted: boolean,
): AoError {
  const retryAt = Math.max(refusal.retryAt, refusal.earliestAt);
  const retryAfter = Math.max(1, Math.ceil((retryAt - refusal.now) / 1000));
  const message =
    refusal.reason === "budget"
      ? `budget for ${resource} spent; it resets at ${new Date(refusal.resetAt).toISOString()}`
      : `budget for ${resource} is paced and shared among active sessions; this session may spend again in ${retryAfter}s`;
  return new AoError(BudgetErrors.AO_ERR_BUDGET_EXHAUSTED, message, {
    httpStatus: refusal.reason === "budget" ? 403 : 429,
    data: {
      resource,
      limit: refusal.limit,
      remaining: 0,
      reset: Math.ceil(refusal.resetAt / 1000),
      retryAt,
      retryAfter,
      reason: refusal.reason,
      predicted,
      waitedMs,
    },
  });
}
