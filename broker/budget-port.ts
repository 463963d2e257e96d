/**
 * Adapts the BudgetGate (broker/budget) to the pipeline's BudgetPort: the gate speaks admissions,
 * refusals and settle outcomes; the pipeline wants "admit or tell me you would wait", "settle with
 * these charges", and a synchronous per-session view for every answer's x-ratelimit-* headers.
 */

import type { BudgetResult } from "../client/index.js";
import type { Logger } from "../common/index.js";
import type { RateLimitResource, RateLimitSnapshot } from "../github/index.js";
import type { BudgetGate } from "./budget/index.js";
import { type Admission, type AdmissionRequest, type BudgetPort, BudgetWouldWait } from "./pipeline/ports.js";
import type { UpstreamClient } from "./upstream/index.js";

export function budgetPort(gate: BudgetGate, logger: Logger): BudgetPort {
  return {
    async admit(request: AdmissionRequest): Promise<Admission> {
      const admitRequest = {
        sessionId: request.sessionId,
        weight: request.weight,
        priority: request.priority,
        resource: request.resource,
        cost: request.cost,
        deadlineAt: request.deadlineAt,
      };
      let admission: Awaited<ReturnType<BudgetGate["admit"]>>;
      if (request.wait) {
        admission = await gate.admit(admitRequest);
      } else {
        const decision = await gate.tryAdmit(admitRequest);
        if (!decision.admitted) throw new BudgetWouldWait(decision.retryAt);
        admission = decision.admission;
      }
      return {
        waitedMs: admission.waitedMs,
        settle: (cost, details) =>
          gate.settle(admission, {
            cost,
            ...(details?.charges ? { charges: details.charges } : {}),
            ...(details?.rateLimit ? { rateLimit: details.rateLimit } : {}),
          }),
        release: () => gate.release(admission),
      };
    },
    observe(snapshot: RateLimitSnapshot): void {
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
export async function learnBuckets(client: UpstreamClient, gate: BudgetGate, logger: Logger): Promise<void> {
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
      await gate.observe({
        resource,
        limit: bucket.limit,
        remaining: bucket.remaining,
        reset: bucket.reset,
        used: bucket.used ?? bucket.limit - bucket.remaining,
      });
    }
  } catch (error) {
    logger.warn({ err: error }, "could not read GET /rate_limit at start; budgets are learnt from answers");
  }
}

/** `budget.get` / `ao-broker budget`: GitHub's buckets as the gate sees them, and each session's share. */
export async function budgetReport(gate: BudgetGate): Promise<BudgetResult> {
  const [views, spend] = await Promise.all([gate.globalView(), gate.sessionSpend()]);
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
  };
}
