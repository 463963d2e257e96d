/**
 * The budget gate's policy numbers with their defaults. The defaults are decisions (docs/architecture.md,
 * "Policies"); docs/budget.md explains each and docs/decisions/0003 the rule.
 */
import { AoError, CommonErrors } from "../../common/index.js";
import type { PriorityClass } from "../pipeline/types.js";
import type { PacePolicy } from "./core/pacing.js";
import type { ReserveFractions } from "./core/reserve.js";

export interface BudgetPolicy {
  /** Shares of each window kept back for higher classes. @defaultValue { lifecycle: 0.1, interactive: 0.05 } */
  readonly reserve: ReserveFractions;
  /** A session that asked for budget within this long is active and shares the pool. @defaultValue 300000 */
  readonly activeMs: number;
  /** A waiting caller retries at least this often (and on every "budget freed" message). @defaultValue 1000 */
  readonly pollMs: number;
  /** A session refused within this long is waiting: it claims its whole unused share. @defaultValue 5000 */
  readonly hungryMs: number;
  /** An admission not settled within this long frees itself (its broker crashed). @defaultValue 300000 */
  readonly reservationTtlMs: number;
  /** The window is assumed refilled this long after its reset, before GitHub confirms. @defaultValue 1000 */
  readonly resetMarginMs: number;
  /** Multiplier on a light session's projected spend when holding budget for it; 0 = hold its whole share. @defaultValue 2 */
  readonly claimHeadroom: number;
  /** Smallest claim an active session holds, as a fraction of the limit. @defaultValue 0.002 */
  readonly claimFloorFraction: number;
  /** Spend rates are measured over at least this long. @defaultValue 10000 */
  readonly minRateElapsedMs: number;
  /** Window length per resource ("default" for the rest). @defaultValue { default: 3600000, search: 60000, code_search: 60000 } */
  readonly windowMs: Readonly<Record<string, number>>;
  /** Limit assumed per resource before GitHub answers. @defaultValue { default: 5000, search: 30, code_search: 10 } */
  readonly defaultLimits: Readonly<Record<string, number>>;
  /** sessionView() answers from a snapshot at most this old. @defaultValue 250 */
  readonly viewRefreshMs: number;
  /** Class whose reserve the per-session view is computed for. @defaultValue "interactive" */
  readonly viewClass: PriorityClass;
  /**
   * Pacing over the window (core/pacing.ts). The gate alone defaults to no pacing (burst 1 = the
   * whole window); the broker's config turns it on (docs/config.md, budget.pace).
   * @defaultValue { burstFraction: 1, burstMin: 0, keepFraction: 0 }
   */
  readonly pace: PacePolicy;
}

export type BudgetPolicyInput = {
  readonly [K in keyof BudgetPolicy]?: BudgetPolicy[K] extends Readonly<Record<string, number>>
    ? Partial<BudgetPolicy[K]>
    : BudgetPolicy[K] extends PacePolicy
      ? Partial<PacePolicy>
      : BudgetPolicy[K];
};

export const DEFAULT_BUDGET_POLICY: BudgetPolicy = Object.freeze({
  reserve: Object.freeze({ lifecycle: 0.1, interactive: 0.05 }),
  activeMs: 300_000,
  pollMs: 1_000,
  hungryMs: 5_000,
  reservationTtlMs: 300_000,
  resetMarginMs: 1_000,
  claimHeadroom: 2,
  claimFloorFraction: 0.002,
  minRateElapsedMs: 10_000,
  windowMs: Object.freeze({ default: 3_600_000, search: 60_000, code_search: 60_000 }),
  defaultLimits: Object.freeze({ default: 5_000, search: 30, code_search: 10 }),
  viewRefreshMs: 250,
  viewClass: "interactive",
  pace: Object.freeze({ burstFraction: 1, burstMin: 0, keepFraction: 0 }),
});

function invalid(key: string, expected: string): never {
  throw new AoError(CommonErrors.AO_ERR_CONFIG_INVALID, `budget.${key}: expected ${expected}`);
}

export function resolveBudgetPolicy(input: BudgetPolicyInput = {}): BudgetPolicy {
  const d = DEFAULT_BUDGET_POLICY;
  const policy: BudgetPolicy = {
    ...d,
    ...(Object.fromEntries(
      Object.entries(input).filter(([, v]) => v !== undefined),
    ) as Partial<BudgetPolicy>),
    reserve: { ...d.reserve, ...input.reserve },
    pace: { ...d.pace, ...input.pace },
    windowMs: { ...d.windowMs, ...input.windowMs } as Record<string, number>,
    defaultLimits: { ...d.defaultLimits, ...input.defaultLimits } as Record<string, number>,
  };
  const { lifecycle, interactive } = policy.reserve;
  if (!(lifecycle >= 0 && interactive >= 0 && lifecycle + interactive < 1)) {
    invalid("reserve", "fractions ≥ 0 whose sum is below 1");
  }
  for (const key of ["activeMs", "pollMs", "hungryMs", "reservationTtlMs", "viewRefreshMs"] as const) {
    if (!(Number.isFinite(policy[key]) && policy[key] > 0)) invalid(key, "a positive number of ms");
  }
  for (const key of ["resetMarginMs", "claimHeadroom", "claimFloorFraction", "minRateElapsedMs"] as const) {
    if (!(Number.isFinite(policy[key]) && policy[key] >= 0)) invalid(key, "a number ≥ 0");
  }
  // A waiter must look again before it would count as inactive or stop counting as hungry.
  if (policy.pollMs >= policy.hungryMs) invalid("pollMs", `less than hungryMs (${policy.hungryMs})`);
  if (policy.hungryMs > policy.activeMs) invalid("hungryMs", `at most activeMs (${policy.activeMs})`);
  const { burstFraction, keepFraction, burstMin } = policy.pace;
  if (!(Number.isFinite(burstFraction) && burstFraction > 0)) invalid("pace.burstFraction", "a number > 0");
  if (!(Number.isInteger(burstMin) && burstMin >= 0)) invalid("pace.burstMin", "an integer ≥ 0");
  // What a heavy session leaves for light ones must fit in the burst, or nobody could start.
  if (
    !(
      Number.isFinite(keepFraction) &&
      keepFraction >= 0 &&
      (burstFraction >= 1 || keepFraction < burstFraction)
    )
  )
    invalid("pace.keepFraction", `a number ≥ 0 below pace.burstFraction (${burstFraction})`);
  for (const [resource, ms] of Object.entries(policy.windowMs)) {
    if (!(Number.isFinite(ms) && ms > 0)) invalid(`windowMs.${resource}`, "a positive number of ms");
  }
  for (const [resource, limit] of Object.entries(policy.defaultLimits)) {
    if (!(Number.isInteger(limit) && limit > 0)) invalid(`defaultLimits.${resource}`, "a positive integer");
  }
  return Object.freeze(policy);
}

export function windowMsFor(policy: BudgetPolicy, resource: string): number {
  return (
    policy.windowMs[resource] ?? policy.windowMs.default ?? (DEFAULT_BUDGET_POLICY.windowMs.default as number)
  );
}

export function defaultLimitFor(policy: BudgetPolicy, resource: string): number {
  return (
    policy.defaultLimits[resource] ??
    policy.defaultLimits.default ??
    (DEFAULT_BUDGET_POLICY.defaultLimits.default as number)
  );
}
