/**
 * Max-min fairness with weights (https://en.wikipedia.org/wiki/Max-min_fairness): nobody can get
 * more without taking from someone who has less (relative to weight). Sessions that want less
 * than an equal weighted split get all they want; what they leave is split again among the rest,
 * in proportion to their weights ("water-filling").
 *
 * These are the offline allocations the online admission rule (admission.ts) aims at; they are
 * also what `ao-broker sessions` shows as each session's share.
 */

export interface WeightedSession {
  readonly id: string;
  /** > 0. */
  readonly weight: number;
}

export interface WeightedDemand extends WeightedSession {
  /** What the session would spend if nothing held it back; Infinity for "as much as it can get". */
  readonly demand: number;
}

/** Each session's slice of `pool` in proportion to its weight. */
export function weightedShares(pool: number, sessions: readonly WeightedSession[]): Map<string, number> {
  const total = sessions.reduce((sum, s) => sum + s.weight, 0);
  const shares = new Map<string, number>();
  for (const s of sessions) shares.set(s.id, total > 0 ? (pool * s.weight) / total : 0);
  return shares;
}

/**
 * Water-filling: satisfy the smallest demands (per unit of weight) first; once a demand exceeds
 * the current level, everyone left is capped at the level. Σ allocation = min(pool, Σ demand).
 */
export function maxMinAllocation(pool: number, sessions: readonly WeightedDemand[]): Map<string, number> {
  const order = [...sessions].sort((a, b) => a.demand / a.weight - b.demand / b.weight);
  const allocation = new Map<string, number>();
  let left = Math.max(0, pool);
  let weightLeft = order.reduce((sum, s) => sum + s.weight, 0);
  for (let i = 0; i < order.length; i++) {
    const s = order[i]!;
    const level = weightLeft > 0 ? (left * s.weight) / weightLeft : 0;
    if (s.demand <= level) {
      allocation.set(s.id, s.demand);
      left -= s.demand;
      weightLeft -= s.weight;
      continue;
    }
    // Everyone from here on wants more than the level: split what is left by weight.
    for (const rest of order.slice(i))
      allocation.set(rest.id, weightLeft > 0 ? (left * rest.weight) / weightLeft : 0);
    break;
  }
  return allocation;
}
