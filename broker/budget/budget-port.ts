/**
 * Adapts the BudgetGate (broker/budget) to the pipeline's BudgetPort: the gate speaks admissions,
 * refusals and settle outcomes; the pipeline wants "admit, waiting", "admit now or tell me until when
 * you would wait" (a typed decision, never an exception), "settle with
 * these charges", and a synchronous per-session view for every answer's x-ratelimit-* headers.
 */

import type { BudgetResult, BudgetSecondary, BudgetWaitInfo } from "../../client/index.js";
import { AoError, type Logger } from "../../common/index.js";
import type { RateLimitResource, RateLimitSnapshot } from "../../github/index.js";
import type { Admission, AdmissionDecision, AdmissionRequest, BudgetPort } from "../pipeline/ports.js";
import type { RedisHealth } from "../redis/redis-health.js";
import type { SecondaryLimitsView, UpstreamClient } from "../upstream/index.js";
import {
  type AdmitRequest,
  BudgetErrors,
  type BudgetGate,
  type BudgetPolicyInput,
  type Admission as GateAdmission,
} from "./index.js";
import type { LocalBudget } from "./local-budget.js";

/** The gate's policy from the `budget` config section (docs/config.md). */
export function budgetPolicyFromConfig(budget: {
  readonly reserve: { readonly lifecycle: number; readonly interactive: number };
  readonly pace: { readonly burstFraction: number; readonly burstMin: number; readonly keepFraction: number };
  readonly windowSeconds: number;
}): BudgetPolicyInput {
  return {
    reserve: budget.reserve,
    pace: budget.pace,
    windowMs: { default: budget.windowSeconds * 1000 },
  };
}

export interface BudgetPortOptions {
  readonly gate: BudgetGate;
  readonly logger: Logger;
  /** While Redis is unhealthy the gate is not asked; the local conservative budget decides. */
  readonly health?: RedisHealth | undefined;
  readonly local?: LocalBudget | undefined;
}

function isGateUnavailable(error: unknown): boolean {
  // Budget refusals and bad requests are the gate's answers; anything else means Redis failed us.
  return !(
    error instanceof AoError &&
    error.code.startsWith("AO_ERR_BUDGET_") &&
    error.code !== BudgetErrors.AO_ERR_BUDGET_SCRIPT_FAILED
  );
}

export function budgetPort(options: BudgetPortOptions): BudgetPort {
  const { gate, logger, health, local } = options;
  /** Admits on the local budget; undefined when `yieldWhen` turned true while waiting (ask the gate). */
  const admitLocally = async (
    request: AdmissionRequest,
    fallback: LocalBudget,
    yieldWhen?: () => boolean,
  ): Promise<Admission | undefined> => {
    const { waitedMs, yielded } = await fallback.admit(
      request.resource,
      request.cost,
      request.deadlineAt,
      yieldWhen,
    );
    if (yielded) return undefined;
    return {
      waitedMs,
      settle: async (_cost, details) => {
        if (details?.rateLimit) fallback.observe(details.rateLimit);
      },
      release: async () => undefined,
    };
  };
  /** The gate's admission as the pipeline's: settle and release never throw. */
  const wrap = (admission: GateAdmission): Admission => ({
    waitedMs: admission.waitedMs,
    settle: async (cost, details) => {
      if (details?.rateLimit) local?.observe(details.rateLimit);
      try {
        await gate.settle(admission, {
          cost,
          ...(details?.charges ? { charges: details.charges } : {}),
          ...(details?.rateLimit ? { rateLimit: details.rateLimit } : {}),
        });
      } catch (error) {
        // The reservation expires by itself; GitHub's headers correct the window on the next answer.
        logger.warn({ err: error }, "budget settle failed");
      }
    },
    release: async () => {
      await gate
        .release(admission)
        .catch((error: unknown) => logger.warn({ err: error }, "budget release failed"));
    },
  });
  /**
   * Asks the gate (`ask`), or the local conservative budget while Redis is unhealthy or when the
   * gate fails; `admitted` turns a local admission into the caller's result. The local budget
   * waits either way, as it always has: it holds no stale-answer shortcut.
   */
  const decide = async <R>(
    request: AdmissionRequest,
    ask: (admitRequest: AdmitRequest) => Promise<R>,
    admitted: (admission: Admission) => R,
  ): Promise<R> => {
    if (local && health && !health.healthy) {
      // Redis coming back mid-wait hands the request to the shared budget.
      const locally = await admitLocally(request, local, () => health.healthy);
      if (locally) return admitted(locally);
    }
    try {
      return await ask({
        sessionId: request.sessionId,
        weight: request.weight,
        group: request.group,
        priority: request.priority,
        resource: request.resource,
        cost: request.cost,
        deadlineAt: request.deadlineAt,
      });
    } catch (error) {
      if (!local || !isGateUnavailable(error)) throw error;
      logger.warn({ err: error }, "budget gate unavailable; admitting on the local conservative budget");
      // No yielding here: the gate just failed, whatever the health flag says.
      return admitted((await admitLocally(request, local)) as Admission);
    }
  };
  return {
    admit: (request) =>
      decide(
        request,
        async (admitRequest) => wrap(await gate.admit(admitRequest)),
        (admission) => admission,
      ),
    tryAdmit: (request) =>
      decide<AdmissionDecision>(
        request,
        async (admitRequest) => {
          const decision = await gate.tryAdmit(admitRequest);
          return decision.admitted
            ? { admitted: true, admission: wrap(decision.admission) }
            : { admitted: false, retryAt: decision.retryAt };
        },
        (admission) => ({ admitted: true, admission }),
      ),
    observe(snapshot: RateLimitSnapshot): void {
      local?.observe(snapshot);
      if (health && !health.healthy) return;
      gate
        .observe(snapshot)
        .catch((error: unknown) => logger.warn({ err: error }, "budget observation failed"));
    },
    sessionView(sessionId: string, resource: RateLimitResource, weight = 1): RateLimitSnapshot | undefined {
      try {
        return gate.sessionView(sessionId, resource, weight);
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * Reads every bucket from GET /rate_limit (free: https://docs.github.com/en/rest/rate-limit/rate-limit)
 * before serving, so the first burst of requests is admitted against GitHub's real numbers instead
 * of a guess. A failure is logged and the broker starts anyway: answers' headers teach it soon.
 */
export async function learnBuckets(
  client: UpstreamClient,
  gate: BudgetGate,
  logger: Logger,
  local?: LocalBudget,
): Promise<void> {
  try {
    const answer = await client.send({ method: "GET", path: "/rate_limit" });
    if (answer.status !== 200) throw new Error(`GET /rate_limit answered ${answer.status}`);
    const body = JSON.parse(answer.body.toString("utf8")) as {
      resources?: Record<string, { limit?: number; remaining?: number; reset?: number; used?: number }>;
    };
    for (const [resource, bucket] of Object.entries(body.resources ?? {})) {
      if (
        typeof bucket.limit !== "number" ||
        typeof bucket.remaining !== "number" ||
        typeof bucket.reset !== "number"
      )
        continue;
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(resource)) continue;
      const snapshot = {
        resource,
        limit: bucket.limit,
        remaining: bucket.remaining,
        reset: bucket.reset,
        used: bucket.used ?? bucket.limit - bucket.remaining,
      };
      local?.observe(snapshot);
      await gate.observe(snapshot);
    }
  } catch (error) {
    logger.warn({ err: error }, "could not read GET /rate_limit at start; budgets are learnt from answers");
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The upstream queue's secondary-limit view in the protocol's terms. */
export function secondaryReport(view: SecondaryLimitsView): {
  secondary: BudgetSecondary;
  waiting: BudgetWaitInfo[];
} {
  return {
    secondary: {
      minuteMs: view.minuteMs,
      contentCreation: view.contentCreation,
      graphqlPoints: {
        used: view.graphql.points,
        limit: view.graphql.limit,
        githubLimit: view.graphql.githubLimit,
      },
      endpoints: view.endpoints.map((e) => ({
        endpoint: e.endpoint,
        used: e.points,
        limit: e.limit,
        githubLimit: e.githubLimit,
      })),
      concurrency: {
        used: view.concurrency.inFlight,
        limit: view.concurrency.limit,
        githubLimit: view.concurrency.githubLimit,
      },
      ...(view.pausedUntil > 0 ? { pausedUntil: iso(view.pausedUntil) } : {}),
    },
    waiting: view.waiting.map((w) => ({
      sessionId: w.sessionId,
      limit: w.limit,
      endpoint: w.endpoint,
      until: iso(w.until),
      since: iso(w.since),
    })),
  };
}

/**
 * `budget.get` / `ao-broker budget`: GitHub's buckets as the gate sees them, each session's share,
 * the secondary limits as the upstream queue paces them, and who waits for which limit.
 */
export async function budgetReport(
  gate: BudgetGate,
  queue?: { secondaryView(): Promise<SecondaryLimitsView> },
): Promise<BudgetResult> {
  const [views, spend, secondaryView] = await Promise.all([
    gate.globalView(),
    gate.sessionSpend(),
    // Redis away: the primary views fail anyway; the secondary one must not hide them.
    queue?.secondaryView().catch(() => undefined),
  ]);
  const secondary = secondaryView ? secondaryReport(secondaryView) : undefined;
  const gateWaits: BudgetWaitInfo[] = gate.waiting().map((w) => ({
    sessionId: w.sessionId,
    limit: w.reason,
    endpoint: w.resource,
    until: iso(w.retryAt),
    since: iso(w.since),
  }));
  const waiting = [...gateWaits, ...(secondary?.waiting ?? [])].sort((a, b) =>
    a.since.localeCompare(b.since),
  );
  const resources = Object.fromEntries(
    views.map((v) => [
      v.resource,
      {
        limit: v.limit,
        remaining: v.remaining,
        used: v.used,
        resetAt: new Date(v.reset * 1000).toISOString(),
        reserved: v.reserved,
        projectedAtReset: v.projectedAtReset,
      },
    ]),
  );
  const bySession = new Map<string, Record<string, number>>();
  for (const s of spend) {
    const spent = bySession.get(s.sessionId) ?? {};
    spent[s.resource] = s.windowUsed;
    bySession.set(s.sessionId, spent);
  }
  // A session is active when it spent on any resource recently; its share is its weight over the
  // weights of all active sessions (what max-min fairness gives it under contention).
  const activeWeights = new Map<string, number>();
  for (const s of spend) if (s.active) activeWeights.set(s.sessionId, s.weight);
  const totalWeight = [...activeWeights.values()].reduce((sum, w) => sum + w, 0);
  return {
    resources,
    sessions: [...bySession].map(([id, spent]) => ({
      id,
      spent,
      share: totalWeight > 0 ? (activeWeights.get(id) ?? 0) / totalWeight : 0,
    })),
    ...(secondary ? { secondary: secondary.secondary } : {}),
    waiting,
  };
}
