/**
 * "Within budget": the criteria a step must meet to count toward sessions-to-budget (docs/architecture.md,
 * "The benchmark"): projected usage ≤ 100 % of BOTH hourly budgets, zero agent-visible rate-limit
 * errors, p95 added wait ≤ 1 s and served-data staleness p99 ≤ 30 s (simulated time). A missing
 * percentile (no samples) does not fail a step: there was nothing to wait for or to be stale. Pure.
 *
 * Issue 13 made it judge what the machine's load cannot decide (docs/decisions/0006): the added
 * wait judged is what the broker imposed by design (its own account, in simulated time), the
 * machine's processing reported apart; every write (none dropped or refused, p95 ≤ 10 simulated
 * s); every kind of fact (each kind's p99, not one p99 over mostly unchanged answers); and the
 * per-change visibility p99.
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
  /** @defaultValue 10000 */
  readonly writeP95Ms: number;
  /**
   * From a change until every reader has seen it, p99. It includes the reader's own poll gap
   * (an agent polling reviews every 30 s sees a review up to 30 s late from any arm), hence the
   * staleness bound plus that longest poll. @defaultValue 60000
   */
  readonly changeVisibilityP99Ms: number;
}

export const DEFAULT_CRITERIA: BudgetCriteria = Object.freeze({
  graphqlPointsPerHour: 5000,
  restCorePerHour: 5000,
  addedWaitP95Ms: 1000,
  stalenessP99Ms: 30_000,
  writeP95Ms: 10_000,
  changeVisibilityP99Ms: 60_000,
});

export interface StepFigures {
  readonly graphqlPointsPerHour: number;
  readonly restCorePerHour: number;
  readonly agentRateLimitErrors: number;
  /** The wait judged: what the broker imposed (imposedWaitMs), or the whole added wait for older callers. */
  readonly addedWaitMs: { readonly p95: number | null };
  readonly stalenessMs: { readonly p99: number | null };
  readonly stalenessByFact?: Readonly<Record<string, { readonly p99: number | null }>>;
  readonly changeVisibilityMs?: { readonly p99: number | null };
  readonly writes?: { readonly failed: number; readonly p95Ms: number | null };
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
  for (const [kind, figures_] of Object.entries(figures.stalenessByFact ?? {})) {
    const p99 = figures_.p99;
    if (p99 !== null && p99 > criteria.stalenessP99Ms)
      reasons.push(`${kind} staleness p99 ${fmt(p99 / 1000)} s > ${fmt(criteria.stalenessP99Ms / 1000)} s`);
  }
  const visible = figures.changeVisibilityMs?.p99 ?? null;
  if (visible !== null && visible > criteria.changeVisibilityP99Ms)
    reasons.push(
      `change visibility p99 ${fmt(visible / 1000)} s > ${fmt(criteria.changeVisibilityP99Ms / 1000)} s`,
    );
  const writes = figures.writes;
  if (writes && writes.failed > 0) reasons.push(`${fmt(writes.failed)} writes dropped or refused`);
  if (writes?.p95Ms != null && writes.p95Ms > criteria.writeP95Ms)
    reasons.push(`write latency p95 ${fmt(writes.p95Ms / 1000)} s > ${fmt(criteria.writeP95Ms / 1000)} s`);
  return { withinBudget: reasons.length === 0, reasons };
}

/**
 * The share of the hourly budgets a step used (the larger of GraphQL and REST, over their
 * criteria): the search reads where the boundary is from it (core/session-search.ts).
 */
export function budgetUsage(
  figures: Pick<StepFigures, "graphqlPointsPerHour" | "restCorePerHour">,
  criteria: BudgetCriteria = DEFAULT_CRITERIA,
): number {
  const { graphql, rest } = usageByBudget(figures, criteria);
  return Math.max(graphql, rest);
}

/** Each budget's share apart: GraphQL and REST grow differently with the session count. */
export function usageByBudget(
  figures: Pick<StepFigures, "graphqlPointsPerHour" | "restCorePerHour">,
  criteria: BudgetCriteria = DEFAULT_CRITERIA,
): { graphql: number; rest: number } {
  return {
    graphql: figures.graphqlPointsPerHour / criteria.graphqlPointsPerHour,
    rest: figures.restCorePerHour / criteria.restCorePerHour,
  };
}

/** A reason judgeStep gives for a budget overrun (GraphQL or REST per hour), not another criterion. */
export function isBudgetReason(reason: string): boolean {
  return /^(GraphQL [\d,]+ pts\/h|REST [\d,]+ req\/h) > /.test(reason);
}
