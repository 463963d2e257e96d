/**
 * How often each PR is looked at, and how far the budget lets the lifecycle go.
 *
 * Cadence: a PR whose CI is running is checked every `activeIntervalMs` (its checks will change
 * soon), one that changed recently every `quietIntervalMs`, one quiet for `idleAfterMs` every
 * `idleIntervalMs`. Closed and merged PRs get no per-PR guard: the repository's PR-list guard sees
 * a reopen, since reopening bumps the PR's updated_at.
 *
 * Budget: for each bucket (GraphQL points, REST core requests), when the lifecycle's recent spend
 * rate would run it below its reserve before the window resets, every interval is stretched by the
 * ratio (up to `maxStretch`; the larger bucket need wins), and a cycle never spends GraphQL points
 * below the reserve. REST guards are mostly free 304s, but they still count against GitHub's
 * secondary limits, so their number per cycle is capped too.
 */
import type { CiStatus } from "./pr-enrichment.js";

export interface CadenceOptions {
  /** @defaultValue 10_000 */
  readonly activeIntervalMs: number;
  /** @defaultValue 60_000 */
  readonly quietIntervalMs: number;
  /** @defaultValue 120_000 */
  readonly idleIntervalMs: number;
  /** @defaultValue 600_000 */
  readonly idleAfterMs: number;
}

export interface CadenceSubject {
  readonly ciStatus: CiStatus | null;
  /** Local epoch ms of the PR's last observed change. */
  readonly lastChangeAt: number | null;
  /** Local epoch ms agents last read the PR through the broker (null: not known to be read). */
  readonly readByAgentsAt?: number | null;
}

/**
 * A PR's check guards: at the active cadence while CI runs, or while agents keep reading the PR
 * (read within the last `quietIntervalMs`: the guards' answers then keep vouching for what the
 * agents have cached, which saves a point per agent poll for a free 304); slower once it is quiet.
 */
export function prPollInterval(subject: CadenceSubject, now: number, options: CadenceOptions): number {
  if (subject.ciStatus === "pending" || subject.ciStatus === null) return options.activeIntervalMs;
  const readAt = subject.readByAgentsAt ?? null;
  if (readAt !== null && now - readAt < options.quietIntervalMs) return options.activeIntervalMs;
  if (subject.lastChangeAt !== null && now - subject.lastChangeAt < options.idleAfterMs) {
    return options.quietIntervalMs;
  }
  return options.idleIntervalMs;
}

export interface BudgetSnapshot {
  /** Points (GraphQL) or requests (REST core) left in the current window. */
  readonly remaining: number;
  /** Epoch ms at which the window resets; null when unknown. */
  readonly resetAt: number | null;
}

/** Both buckets the lifecycle draws on, as far as they are known. */
export interface LifecycleBudget {
  readonly graphql?: BudgetSnapshot | undefined;
  readonly core?: BudgetSnapshot | undefined;
}

export interface BudgetPolicyInput {
  readonly budget: LifecycleBudget;
  readonly now: number;
  /** The lifecycle's recent GraphQL spend, points per hour. */
  readonly spendPerHour: number;
  /** The lifecycle's recent charged REST requests (304s are free), per hour. */
  readonly restSpendPerHour: number;
  /** Points the lifecycle leaves for everyone else. */
  readonly reservePoints: number;
  /** REST requests the lifecycle leaves for everyone else. */
  readonly reserveRest: number;
  /** Largest factor intervals are stretched by. */
  readonly maxStretch: number;
}

export interface BudgetDecision {
  /** Multiplier for every poll interval (≥ 1): the larger of the two buckets' needs. */
  readonly stretch: number;
  /** Points this cycle may spend on refreshes; Infinity when the budget is unknown. */
  readonly pointsAllowed: number;
}

/** How much a bucket needs intervals stretched so that the spend rate reaches the reset above the reserve. */
function bucketStretch(
  bucket: BudgetSnapshot | undefined,
  spendPerHour: number,
  reserve: number,
  input: BudgetPolicyInput,
): { stretch: number; spendable: number } {
  if (!bucket) return { stretch: 1, spendable: Number.POSITIVE_INFINITY };
  const spendable = bucket.remaining - reserve;
  if (spendable <= 0) return { stretch: input.maxStretch, spendable: 0 };
  const msToReset = bucket.resetAt === null ? 3_600_000 : Math.max(60_000, bucket.resetAt - input.now);
  const allowancePerHour = (spendable * 3_600_000) / msToReset;
  const stretch =
    spendPerHour <= allowancePerHour ? 1 : Math.min(input.maxStretch, spendPerHour / allowancePerHour);
  return { stretch, spendable };
}

export function budgetDecision(input: BudgetPolicyInput): BudgetDecision {
  const graphql = bucketStretch(input.budget.graphql, input.spendPerHour, input.reservePoints, input);
  const core = bucketStretch(input.budget.core, input.restSpendPerHour, input.reserveRest, input);
  return { stretch: Math.max(graphql.stretch, core.stretch), pointsAllowed: graphql.spendable };
}

/** REST guard requests a cycle may make under a per-minute cap. */
export function restAllowedPerCycle(maxRestPerMinute: number, cycleIntervalMs: number): number {
  return Math.max(1, Math.ceil((maxRestPerMinute * cycleIntervalMs) / 60_000));
}

/**
 * Webhooks as the primary signal (decision 0021): while deliveries keep arriving (the last one
 * less than `liveMs` ago) the guards are a slow backstop and every interval is multiplied by
 * `stretch`; once none has come for `liveMs` (deliveries stopped, or a misconfigured hook), polling
 * returns to its normal cadence. `lastDeliveryAt` null: no webhook seen.
 */
export function webhookStretch(
  lastDeliveryAt: number | null,
  now: number,
  options: { readonly stretch: number; readonly liveMs: number },
): number {
  if (lastDeliveryAt === null || options.stretch <= 1) return 1;
  return now - lastDeliveryAt < options.liveMs ? options.stretch : 1;
}
