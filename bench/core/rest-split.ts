/**
 * REST upstream requests by operation, split into answers GitHub sent in full (`fetched`: 200s and
 * any other status, charged on the primary budget) and 304s (`notModified`, free): what shows
 * whether the broker's REST spend is revalidation (free) or re-fetching (charged). Pure.
 */
import type { RestOperationSplit } from "./report-types.js";

/** REST routes in the simulator's accounting start with the method (`GET /repos/…`). */
const REST_OPERATION = /^[A-Z]+ \//;

/**
 * @param byOperation the step's upstream requests per operation (GraphQL operations are skipped)
 * @param notModified the step's 304 answers per operation
 */
export function restOperationSplit(
  byOperation: Readonly<Record<string, number>>,
  notModified: Readonly<Record<string, number>>,
): Record<string, RestOperationSplit> {
  const split: Record<string, RestOperationSplit> = {};
  for (const [op, n] of Object.entries(byOperation)) {
    if (!REST_OPERATION.test(op)) continue;
    const free = Math.min(n, Math.max(0, notModified[op] ?? 0));
    split[op] = { fetched: n - free, notModified: free };
  }
  return split;
}
