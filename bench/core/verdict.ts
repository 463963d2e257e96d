/**
 * "Within budget": the criteria a step must meet to count toward sessions-to-budget (docs/architecture.md,
 * "The benchmark"): projected usage ≤ 100 % of BOTH hourly budgets, zero agent-visible rate-limit
 * errors, p95 added wait ≤ 1 s and served-data staleness p99 ≤ 30 s (simulated time). A missing
 * percentile (no samples) does not fail a step: there was nothing to wait for or to be stale. Pure.
 */

export interface BudgetCriteria {
  /** @defaultValue 5000 */
  readonly graphqlPointsPerHour: number;
  /** @defaultValue 5000 */
  readonly restCorePerHour: number;
  /** @defaultValue 1000 */
  readonly addedWaitP95Ms: number;
  /** @defaultValue 30000 */
  readonly stalenessP99Ms: number;
}

export const DEFAULT_CRITERIA: BudgetCriteria = Object.freeze({
  graphqlPointsPerHour: 5000,
  restCorePerHour: 5000,
  addedWaitP95Ms: 1000,
  stalenessP99Ms: 30_000,
});

export interface StepFigures {
  readonly graphqlPointsPerHour: number;
  readonly restCorePerHour: number;
  readonly agentRateLimitErrors: number;
  readonly addedWaitMs: { readonly p95: number | null };
  readonly stalenessMs: { readonly p99: number | null };
}

export interface Verdict {
  readonly withinBudget: boolean;
  /** Why not, in words ("GraphQL 9,480 pts/h > 5,000"); empty when within budget. */
  readonly reasons: readonly string[];
}

const fmt = (n: number): string => Math.round(n).toLocaleString("en-US");

export function judgeStep(figures: StepFigures, criteria: BudgetCriteria = DEFAULT_CRITERIA): Verdict {
  const reasons: string[] = [];
  if (figures.graphqlPointsPerHour > criteria.graphqlPointsPerHour)
    reasons.push(
      `GraphQL ${fmt(figures.graphqlPointsPerHour)} pts/h > ${fmt(criteria.graphqlPointsPerHour)}`,
    );
  if (figures.restCorePerHour > criteria.restCorePerHour)
    reasons.push(`REST ${fmt(figures.restCorePerHour)} req/h > ${fmt(criteria.restCorePerHour)}`);
  if (figures.agentRateLimitErrors > 0)
    reasons.push(`${fmt(figures.agentRateLimitErrors)} rate-limit errors seen by agents`);
  const wait = figures.addedWaitMs.p95;
  if (wait !== null && wait > criteria.addedWaitP95Ms)
    reasons.push(`added wait p95 ${fmt(wait)} ms > ${fmt(criteria.addedWaitP95Ms)} ms`);
  const stale = figures.stalenessMs.p99;
  if (stale !== null && stale > criteria.stalenessP99Ms)
    reasons.push(`staleness p99 ${fmt(stale / 1000)} s > ${fmt(criteria.stalenessP99Ms / 1000)} s`);
  return { withinBudget: reasons.length === 0, reasons };
}
