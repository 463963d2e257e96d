/**
 * Redis layout of the budget (documented in docs/lua-scripts.md) and the typed state of one
 * resource as readBudget-5.lua returns it. Every key of every resource carries the hash tag
 * `{<prefix>:budget}`, so in a Redis Cluster all of them share one slot and one Lua script can
 * touch them atomically: that is what makes several brokers enforce ONE budget.
 */
import type { SessionUsage } from "./core/admission.js";
import type { BudgetWindow } from "./core/window.js";

export function budgetTag(prefix: string): string {
  return `{${prefix}:budget}`;
}

/** KEYS of every budget script, in order: win, resv, seen, sw, sx. */
export function budgetKeys(prefix: string, resource: string): string[] {
  const tag = budgetTag(prefix);
  return ["win", "resv", "seen", "sw", "sx"].map((part) => `${tag}:${part}:${resource}`);
}

/** SET of the resources this budget has seen (for views). */
export function resourcesKey(prefix: string): string {
  return `${budgetTag(prefix)}:resources`;
}

/** Pub/sub channel: the message is the resource whose budget grew. */
export function freedChannel(prefix: string): string {
  return `${prefix}:budget:freed`;
}

export interface ActiveSession extends SessionUsage {
  readonly lastSeenAt: number;
  /** Parent budget it takes part in fair share under (core/groups.ts), if any. */
  readonly group?: string | undefined;
  readonly settled: number;
  readonly held: number;
}

export interface ResourceState {
  readonly resource: string;
  /** The time the script ran at (Redis TIME or the injected clock). */
  readonly now: number;
  readonly window: BudgetWindow;
  readonly reserved: number;
  /** In-flight admissions (all brokers). */
  readonly inFlight: number;
  /** Active sessions in Redis order (score, then id): the order admission sums in. */
  readonly active: readonly ActiveSession[];
  /** Settled spend this window, every session that spent. */
  readonly windowSpend: ReadonlyMap<string, number>;
  /** Spend since first seen, every session not forgotten. */
  readonly totals: ReadonlyMap<string, number>;
  readonly weights: ReadonlyMap<string, number>;
  readonly held: ReadonlyMap<string, number>;
}

const n = (value: unknown, fallback = 0): number => {
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : fallback;
};

function pairs(flat: unknown): Map<string, string> {
  const list = Array.isArray(flat) ? (flat as string[]) : [];
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < list.length; i += 2) map.set(String(list[i]), String(list[i + 1]));
  return map;
}

function byPrefix(map: Map<string, string>, prefix: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const [field, value] of map)
    if (field.startsWith(prefix)) out.set(field.slice(prefix.length), n(value));
  return out;
}

export function parseReadBudgetReply(resource: string, reply: unknown): ResourceState {
  const [win, activeFlat, sw, sx] = reply as [string[], string[], string[], string[]];
  const now = n(win[0]);
  const window: BudgetWindow = {
    limit: n(win[1]),
    remaining: n(win[2]),
    resetAt: n(win[3]),
    startAt: n(win[4]),
    estimated: win[5] === "1",
  };
  const active: ActiveSession[] = [];
  for (let i = 0; i + 6 < activeFlat.length; i += 7) {
    const settled = n(activeFlat[i + 3]);
    const held = Math.max(0, n(activeFlat[i + 4]));
    const denied = activeFlat[i + 6];
    active.push({
      id: String(activeFlat[i]),
      lastSeenAt: n(activeFlat[i + 1]),
      weight: n(activeFlat[i + 2], 1),
      settled,
      held,
      used: settled + held,
      firstSeenAt: n(activeFlat[i + 5], now),
      deniedAt: denied ? n(denied) : undefined,
    });
  }
  const swMap = pairs(sw);
  const sxMap = pairs(sx);
  for (const [i, session] of active.entries()) {
    const group = sxMap.get(`g:${session.id}`);
    if (group) active[i] = { ...session, group };
  }
  return {
    resource,
    now,
    window,
    reserved: n(win[6]),
    inFlight: n(win[7]),
    active,
    windowSpend: byPrefix(swMap, "u:"),
    totals: byPrefix(sxMap, "t:"),
    weights: byPrefix(sxMap, "w:"),
    held: byPrefix(sxMap, "h:"),
  };
}
