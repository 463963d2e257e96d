/**
 * Nothing reaches GitHub without budget. Each request that will cost something is admitted by the
 * BudgetPort (which waits for refill, fairly across sessions, until the request's deadline) and then
 * settled with what GitHub really charged — zero for a 304 — so sessions pay only for real cost;
 * when several callers shared the call (coalescing, batching), the cost is split among them.
 * When the cache layer has a stale answer the caller accepts, the request asks not to wait: the
 * port throws BudgetWouldWait and the cache layer serves the stale answer instead.
 */
import type { BudgetPort } from "./ports.js";
import { type Layer, splitCost } from "./types.js";

export function budgetLayer(budget: BudgetPort): Layer {
  return (next) => async (request) => {
    const c = request.classification;
    if (c.free) {
      const response = await next(request);
      if (response.rateLimit) budget.observe(response.rateLimit);
      return response;
    }
    const admission = await budget.admit({
      sessionId: request.caller.sessionId,
      weight: request.caller.weight,
      group: request.caller.budgetGroup,
      resource: c.resource,
      cost: Math.max(1, c.estimatedCost),
      priority: request.priority,
      deadlineAt: request.deadlineAt,
      wait: !request.staleAvailable,
    });
    let response: Awaited<ReturnType<typeof next>>;
    try {
      response = await next(request);
    } catch (error) {
      await admission.release();
      throw error;
    }
    const cost = response.upstreamCost ?? response.cost;
    const shared = request.sharing && request.sharing.participants.length > 1;
    await admission.settle(cost, {
      charges: shared && request.sharing ? splitCost(request.sharing, cost) : undefined,
      rateLimit: response.rateLimit,
    });
    return { ...response, waitedMs: (response.waitedMs ?? 0) + admission.waitedMs };
  };
}
