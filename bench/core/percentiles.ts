/**
 * Percentiles for the scorecard (nearest-rank, as the seed's scorecards report them: the value
 * below which p % of the samples fall, always an observed sample). Empty input gives null, never
 * 0: "no samples" must not read as "no wait".
 */

export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((Math.min(100, Math.max(0, p)) / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? null;
}

export function percentiles<P extends number>(
  values: readonly number[],
  ps: readonly P[],
): Record<`p${P}`, number | null> {
  const sorted = [...values].sort((a, b) => a - b);
  const out = {} as Record<`p${P}`, number | null>;
  for (const p of ps) out[`p${p}` as `p${P}`] = percentile(sorted, p);
  return out;
}
