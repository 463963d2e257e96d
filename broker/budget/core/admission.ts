/**
 * The online admission rule: may a request of estimated cost c from session s be sent now?
 * broker/redis/lua/admitBudget-5.lua runs exactly this arithmetic atomically in Redis (so every
 * broker sharing the Redis enforces one budget); this copy serves the views, the docs' worked
 * examples and the tests, and a conformance test keeps the two identical.
 *
 *   available = remaining − reserved − floor(limit × reserveFraction(class))
 *   (a) available ≥ c                                    else refuse: "budget" (wait for refill)
 *   lifecycle is exempt from (b): it has the reserve.
 *   pool      = available + Σ_{active a} used_a          (what the active sessions share this window)
 *   share_a   = pool × w_a / Σ w
 *   (b) used_s + c ≤ share_s                             → admit: "within-share"
 *       or available − Σ_{a≠s} claim_a ≥ c               → admit: "surplus"
 *                                                         else refuse: "fair-share"
 *
 * `used` counts settled spend in this window plus in-flight reservations. A claim is the part of
 * its share another active session may still need: all of it (share − used) when the session was
 * refused recently (it is waiting, so its demand is real), otherwise no more than its own spend
 * rate projected to the reset with headroom, and at least a small floor for a sudden command.
 * Without the projection a light but active session would pin its whole unused share until the
 * window ends, and a CI watcher would wait while budget went unused (docs/budget.md, example 2).
 *
 * Two later rules (docs/decisions/0008): sessions of one group take part as one participant
 * (core/groups.ts), and an admission that passed (b) must also pass the pace (core/pacing.ts),
 * else it is refused "pace" until the window's allowance catches up.
 */
import { type GroupedUsage, groupUsages } from "./groups.js";
import { decidePace, type PacePolicy } from "./pacing.js";
import type { SessionUsage } from "./session-usage.js";
import type { BudgetWindow } from "./window.js";

export type { SessionUsage } from "./session-usage.js";

export interface ClaimPolicy {
  /** A session refused within this long claims its whole unused share. */
  readonly hungryMs: number;
  /** Multiplier on a session's projected spend; 0 disables projection (claims = unused share). */
  readonly headroom: number;
  /** Smallest claim of an active session, in points or requests. */
  readonly floor: number;
  /** Spend rates are measured over at least this long, so one early request is not a torrent. */
  readonly minRateElapsedMs: number;
}

export interface AdmissionInput {
  readonly window: BudgetWindow;
  /** Σ of in-flight reservations (all sessions, all brokers). */
  readonly reserved: number;
  readonly requester: GroupedUsage;
  /** The other active sessions, in the order Redis lists them (score, then id). */
  readonly others: readonly GroupedUsage[];
  /** Estimated cost, > 0. */
  readonly cost: number;
  /** From reserveFraction(class). */
  readonly reserveFraction: number;
  /** Lifecycle: exempt from fair share. */
  readonly exempt: boolean;
  readonly now: number;
  readonly claims: ClaimPolicy;
  /** Pacing over the window; absent = spend as fast as asked. */
  readonly pace?: PacePolicy | undefined;
}

export type AdmissionReason = "exempt" | "within-share" | "surplus" | "budget" | "fair-share" | "pace";

export interface AdmissionDecision {
  readonly admitted: boolean;
  readonly reason: AdmissionReason;
  /** Budget this class could still spend, before this request. */
  readonly available: number;
  readonly pool: number;
  readonly share: number;
  /** Σ of the other active sessions' claims. */
  readonly claims: number;
  /** Σ spend of the requester's participant (its group's, when grouped) in this window. */
  readonly used: number;
  /** Epoch ms worth trying again at: the reset for "budget", the pace's time for "pace", else now. */
  readonly retryAt: number;
  /**
   * The earliest the request could pass even if every in-flight reservation were released:
   * a caller whose deadline comes first is refused at once (predictable refusal).
   */
  readonly earliestAt: number;
}

export function claimFloorFor(limit: number, fraction: number): number {
  return Math.max(1, Math.ceil(limit * fraction));
}

export function claimOf(
  session: SessionUsage,
  share: number,
  window: BudgetWindow,
  now: number,
  policy: ClaimPolicy,
): number {
  const gap = share - session.used;
  if (gap <= 0) return 0;
  if (policy.headroom <= 0) return gap;
  if (session.deniedAt !== undefined && now - session.deniedAt <= policy.hungryMs) return gap;
  const elapsed = Math.max(now - Math.max(session.firstSeenAt, window.startAt), policy.minRateElapsedMs);
  const timeLeft = Math.max(0, window.resetAt - now);
  const projected = Math.ceil((policy.headroom * session.used * timeLeft) / elapsed);
  return Math.min(gap, Math.max(policy.floor, projected));
}

export function decideAdmission(input: AdmissionInput): AdmissionDecision {
  const { window, cost, now } = input;
  const grouped = groupUsages(input.requester, input.others);
  const requester = grouped.requester;
  const others = grouped.others;
  const floor = Math.floor(window.limit * input.reserveFraction);
  const available = window.remaining - input.reserved - floor;
  const base = { available, pool: 0, share: 0, claims: 0, used: requester.used };
  if (available < cost) {
    // Only the reset refills the window when even releasing every reservation would not do.
    const earliestAt = window.remaining - floor < cost ? window.resetAt : now;
    return { ...base, admitted: false, reason: "budget", retryAt: window.resetAt, earliestAt };
  }
  if (input.exempt) return { ...base, admitted: true, reason: "exempt", retryAt: now, earliestAt: now };
  let weights = requester.weight;
  let used = requester.used;
  for (const o of others) {
    weights += o.weight;
    used += o.used;
  }
  const pool = available + used;
  const share = (pool * requester.weight) / weights;
  let claims = 0;
  let reason: AdmissionReason = "within-share";
  if (requester.used + cost > share) {
    for (const o of others) claims += claimOf(o, (pool * o.weight) / weights, window, now, input.claims);
    reason = available - claims >= cost ? "surplus" : "fair-share";
  }
  const fair = { ...base, pool, share, claims };
  if (reason === "fair-share") return { ...fair, admitted: false, reason, retryAt: now, earliestAt: now };
  if (input.pace) {
    const pace = decidePace({
      window,
      reserved: input.reserved,
      now,
      cost,
      used: requester.used,
      surplus: reason === "surplus",
      policy: input.pace,
    });
    if (!pace.admitted)
      return { ...fair, admitted: false, reason: "pace", retryAt: pace.retryAt, earliestAt: pace.earliestAt };
  }
  return { ...fair, admitted: true, reason, retryAt: now, earliestAt: now };
}
