/**
 * Adapts the BudgetGate (broker/budget) to the pipeline's BudgetPort: the gate speaks admissions,
 * refusals and settle outcomes; the pipeline wants "admit or tell me you would wait", "settle with
 * these charges", and a synchronous per-session view for every answer's x-ratelimit-* headers.
 */
import type { Logger } from "../common/index.js";
import type { RateLimitResource, RateLimitSnapshot } from "../github/index.js";
import type { BudgetGate } from "./budget/index.js";
import { type Admission, type AdmissionRequest, type BudgetPort, BudgetWouldWait } from "./pipeline/ports.js";

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
    sessionView(sessionId: string, resource: RateLimitResource): RateLimitSnapshot | undefined {
      try {
        return gate.sessionView(sessionId, resource);
      } catch {
        return undefined;
      }
    },
  };
}
