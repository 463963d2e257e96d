/**
 * Splits the real cost of a merged query (from its injected rateLimit) among its members in
 * proportion to their computed requests (github/ computeQueryCost), so each session pays for the
 * connections it asked for and Σ shares = the real cost, exactly.
 *
 * A member with no connection at all still made GitHub run a query, so its weight is at least one
 * request: without that floor a batch of connection-free queries (e.g. `gh pr view --json number`)
 * would cost nobody anything, and with it such a batch splits evenly.
 *
 * Exactness: shares are computed in integer micro-points (1e-6 point) with the largest-remainder
 * method (ties go to the earlier member), so the integer shares sum to round(cost × 1e6) exactly;
 * `points[i] = micro[i] / 1e6` is the fractional figure to report.
 */

export const MICRO_POINTS_PER_POINT = 1_000_000;

export interface CostShares {
  /** Each member's share in points (fractional). */
  readonly points: readonly number[];
  /** Each member's share in micro-points; sums to round(totalPoints × 1e6). */
  readonly micro: readonly number[];
}

export function shareCost(totalPoints: number, requests: readonly number[]): CostShares {
  if (requests.length === 0) return { points: [], micro: [] };
  const total = Math.max(0, Math.round(totalPoints * MICRO_POINTS_PER_POINT));
  const weights = requests.map((r) => Math.max(1, Number.isFinite(r) ? Math.floor(r) : 1));
  const weightSum = weights.reduce((a, b) => a + b, 0);
  const micro = weights.map((w) => Math.floor((total * w) / weightSum));
  const remainders = weights.map((w, i) => ({ i, r: total * w - (micro[i] ?? 0) * weightSum }));
  let left = total - micro.reduce((a, b) => a + b, 0);
  remainders.sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of remainders) {
    if (left <= 0) break;
    micro[i] = (micro[i] ?? 0) + 1;
    left -= 1;
  }
  return { micro, points: micro.map((m) => m / MICRO_POINTS_PER_POINT) };
}
