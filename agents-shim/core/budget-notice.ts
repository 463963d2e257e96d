/**
 * The line the shim prints on gh's stderr when gh is probably waiting for budget: the broker
 * queues a request instead of failing it when the shared budget (or this session's fair share of
 * it) is spent, and gh itself shows nothing while it waits. Decided from the broker's budget
 * report (IPC budget.get), so it is an estimate: it names the bucket that is spent and when it
 * refills, and says nothing when no bucket is spent.
 */
export interface NoticeBudgetResource {
  readonly limit: number;
  readonly remaining: number;
  readonly resetAt: string;
  readonly reserved?: number | undefined;
}

export interface NoticeBudget {
  readonly resources: Readonly<Record<string, NoticeBudgetResource>>;
  readonly sessions?:
    | readonly {
        readonly id: string;
        readonly spent?: Readonly<Record<string, number>> | undefined;
        readonly share?: number | undefined;
      }[]
    | undefined;
}

export interface BudgetNotice {
  /** Same key → same situation: print once. */
  readonly key: string;
  readonly message: string;
}

const UNITS: Readonly<Record<string, string>> = { graphql: "GraphQL points", core: "REST requests" };

export function formatWait(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}

function clock(iso: string): string {
  return iso.slice(11, 19) ? `${iso.slice(11, 19)} UTC` : iso;
}

export function budgetNotice(budget: NoticeBudget, sessionId: string, now: number): BudgetNotice | undefined {
  const session = budget.sessions?.find((s) => s.id === sessionId);
  for (const [name, r] of Object.entries(budget.resources)) {
    const resetMs = Date.parse(r.resetAt);
    if (!Number.isFinite(resetMs) || resetMs <= now) continue;
    const units = UNITS[name] ?? `${name} units`;
    const wait = `${clock(r.resetAt)} (in about ${formatWait(resetMs - now)})`;
    const available = r.remaining - (r.reserved ?? 0);
    if (available <= 0) {
      return {
        key: `${name}:global:${r.resetAt}`,
        message: `ao-broker: GitHub's ${name} budget for agents is spent (${Math.max(0, Math.floor(r.remaining))} of ${r.limit} ${units} left, the rest reserved); gh's request waits in the broker's queue until it refills at ${wait}. gh goes on by itself then; Ctrl-C stops it.`,
      };
    }
    const spent = session?.spent?.[name] ?? 0;
    const share = session?.share;
    if (share !== undefined && share > 0 && spent > 0 && spent >= share * r.limit) {
      return {
        key: `${name}:share:${r.resetAt}`,
        message: `ao-broker: this session has used its fair share of GitHub's ${name} budget (${Math.round(spent)} ${units} this window); gh's request waits in the broker's queue until the budget refills at ${wait} or other sessions leave room. gh goes on by itself then; Ctrl-C stops it.`,
      };
    }
  }
  return undefined;
}
