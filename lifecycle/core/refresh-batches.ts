/**
 * Packs the PRs a cycle must re-read into aliased queries. GitHub charges per query, not per PR,
 * so the free slots of the last batch are filled with the PRs read longest ago: they come back
 * fresher (mergeability and "behind base" change without moving any guard) for no extra points.
 * Filling never makes a query dearer: slots are filled only while the batch still costs what it
 * cost unfilled (with 50 PRs per batch, a 3-PR batch is filled to 37, not 50).
 * When the budget allows fewer batches than needed, the most urgent PRs go first (the caller
 * orders `required` by urgency) and the rest are deferred to the next cycle.
 */
import { enrichmentPoints, type PrTarget } from "./enrichment-query.js";
import { prKey } from "./repo-ref.js";

export interface RefreshPlanInput {
  /** PRs that must be read, most urgent first. Duplicates are dropped. */
  readonly required: readonly PrTarget[];
  /** Candidates for free slots, stalest first. */
  readonly fillers: readonly PrTarget[];
  readonly batchSize: number;
  /** Batches this cycle may send (budget). */
  readonly maxBatches: number;
  /** Fill the last batch's free slots with fillers. @defaultValue true */
  readonly fill?: boolean;
}

export interface RefreshPlan {
  readonly batches: PrTarget[][];
  readonly deferred: PrTarget[];
  /** How many slots were filled with fillers. */
  readonly filled: number;
}

export function planRefreshBatches(input: RefreshPlanInput): RefreshPlan {
  const size = Math.max(1, Math.floor(input.batchSize));
  const seen = new Set<string>();
  const unique: PrTarget[] = [];
  for (const target of input.required) {
    const key = prKey(target.repo, target.number);
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(target);
  }
  const batches: PrTarget[][] = [];
  for (let i = 0; i < unique.length && batches.length < input.maxBatches; i += size) {
    batches.push(unique.slice(i, i + size));
  }
  const sent = batches.reduce((n, b) => n + b.length, 0);
  const deferred = unique.slice(sent);
  let filled = 0;
  const last = batches.at(-1);
  if (last && input.fill !== false) {
    const points = enrichmentPoints(last.length);
    for (const filler of input.fillers) {
      if (last.length >= size || enrichmentPoints(last.length + 1) > points) break;
      const key = prKey(filler.repo, filler.number);
      if (seen.has(key)) continue;
      seen.add(key);
      last.push(filler);
      filled += 1;
    }
  }
  return { batches, deferred, filled };
}
