/**
 * Nothing reaches GitHub without budget. Each request that will cost something is admitted by the
 * BudgetPort (which waits for refill, fairly across sessions, until the request's deadline) and then
 * settled with what GitHub really charged — zero for a 304 — so sessions pay only for real cost;
 * when several callers shared the call (coalescing, batching), the cost is split among them, as
 * the request's `sharing` lists them when it settles.
 * When the request context says a stale answer is available (the cache layer found one the caller
 * accepts), the layer only tries: if the budget would wait, it returns `wouldWaitResponse` (a typed
 * result, not an exception) and the cache layer serves the stale answer instead.
 */
import type { Admission, AdmissionRequest, BudgetPort } from "./ports.js";
import { type GhResponse, type Layer, splitCost, wouldWaitResponse } from "./types.js";

export function budgetLayer(budget: BudgetPort): Layer {
  return (next) => async (request) => {
    const c = request.classification;
    if (c.free) {
      const response = await next(request);
      if (response.rateLimit) budget.observe(response.rateLimit);
      return response;
    }
    const asked: AdmissionRequest = {
      sessionId: request.caller.sessionId,
      weight: request.caller.weight,
      group: request.caller.budgetGroup,
      resource: c.resource,
      cost: Math.max(1, c.estimatedCost),
      priority: request.priority,
      deadlineAt: request.deadlineAt,
    };
    let admission: Admission;
    if (request.staleAvailable) {
      const decision = await budget.tryAdmit(asked);
      if (!decision.admitted) return wouldWaitResponse(request, decision.retryAt);
      admission = decision.admission;
    } else {
      admission = await budget.admit(asked);
    }
    let response: GhResponse;
    try {
      response = await next(request);
    } catch (error) {
      await admission.release();
      throw error;
    }
    const cost = response.upstreamCost ?? response.cost;
    const participants = request.sharing?.participants();
    await admission.settle(cost, {
      charges: participants && participants.length > 1 ? splitCost(participants, cost) : undefined,
      rateLimit: response.rateLimit,
    });
    return { ...response, waitedMs: (response.waitedMs ?? 0) + admission.waitedMs };
  };
}
