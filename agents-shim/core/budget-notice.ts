/**
 * The line the shim prints on gh's stderr when gh is probably waiting for budget: the broker
 * queues a request instead of failing it when the shared budget is spent, and gh itself shows
 * nothing while it waits. Decided from the broker's budget report (IPC budget.get), so it is an
 * honest estimate, worded as one: it speaks only when a bucket is at or under the share the broker
 * keeps back for AO's own polling (10 % by default, `budget.reserve.lifecycle`) once the points
 * of requests in flight are counted, names that bucket and says when it refills.
 */
export interface NoticeBudgetResource {
  readonly limit: number;
  readonly remaining: number;
  readonly resetAt: string;
  /** Held by admitted requests that have not settled yet. */
  readonly reserved?: number | undefined;
}

export interface NoticeBudget {
  readonly resources: Readonly<Record<string, NoticeBudgetResource>>;
}

export interface BudgetNotice {
  /** Same key → same situation: print once. */
  readonly key: string;
  readonly message: string;
}

/** The broker's default lifecycle reserve: agents' requests wait once only this much is left. */
export const AGENT_FLOOR_FRACTION = 0.1;

const UNITS: Readonly<Record<string, string>> = { graphql: "GraphQL points", core: "REST requests" };

export function formatWait(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}

export function budgetNotice(
  budget: NoticeBudget,
  now: number,
  floorFraction: number = AGENT_FLOOR_FRACTION,
): BudgetNotice | undefined {
  for (const [name, r] of Object.entries(budget.resources)) {
    const resetMs = Date.parse(r.resetAt);
    if (!Number.isFinite(resetMs) || resetMs <= now || !(r.limit > 0)) continue;
    const available = r.remaining - (r.reserved ?? 0);
    if (available > r.limit * floorFraction) continue;
    const units = UNITS[name] ?? `${name} units`;
    const left = Math.max(0, Math.floor(r.remaining));
    return {
      key: `${name}:${r.resetAt}`,
      message: `ao-broker: GitHub's ${name} budget is nearly spent (${left} of ${r.limit} ${units} left; the broker keeps the last ${Math.round(floorFraction * 100)}% for AO's own polling), so gh's requests wait in the broker's queue until it refills at ${r.resetAt.slice(11, 19)} UTC (in about ${formatWait(resetMs - now)}). gh goes on by itself then; Ctrl-C stops it.`,
    };
  }
  return undefined;
}
