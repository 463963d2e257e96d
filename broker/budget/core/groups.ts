/**
 * Parent budgets: sessions of one group (the sessions one shim user auto-registered in one
 * checkout, docs/decisions/0008) take part in fair share as ONE participant, so an agent that
 * names itself twenty times still gets one share. A group's usage is the sum of its members';
 * its weight is its largest member weight (a member cannot add weight by splitting); it first
 * asked when its first member did, and it is hungry when any member was refused recently.
 *
 * broker/redis/lua/_budget.lua (groupUsages) mirrors this; the conformance test compares them.
 */
import type { SessionUsage } from "./session-usage.js";

export interface GroupedUsage extends SessionUsage {
  /** Group id ("" for none): sessions with the same non-empty group are merged. */
  readonly group?: string | undefined;
}

function merge(into: SessionUsage, member: SessionUsage): SessionUsage {
  const deniedAt =
    into.deniedAt === undefined
      ? member.deniedAt
      : member.deniedAt === undefined
        ? into.deniedAt
        : Math.max(into.deniedAt, member.deniedAt);
  return {
    id: into.id,
    weight: Math.max(into.weight, member.weight),
    used: into.used + member.used,
    firstSeenAt: Math.min(into.firstSeenAt, member.firstSeenAt),
    deniedAt,
  };
}

/** The key a session takes part in fair share under. */
export function participantKey(session: GroupedUsage): string {
  return session.group ? `g:${session.group}` : `s:${session.id}`;
}

/**
 * Folds sessions into participants: the requester's participant first (with every other member
 * of its group), then the others in first-appearance order.
 */
export function groupUsages(
  requester: GroupedUsage,
  others: readonly GroupedUsage[],
): { requester: SessionUsage; others: SessionUsage[] } {
  const mine = participantKey(requester);
  let me: SessionUsage = { ...requester };
  const order: string[] = [];
  const byKey = new Map<string, SessionUsage>();
  for (const o of others) {
    const key = participantKey(o);
    if (key === mine) {
      me = merge(me, o);
      continue;
    }
    const seen = byKey.get(key);
    if (seen) byKey.set(key, merge(seen, o));
    else {
      order.push(key);
      byKey.set(key, { ...o });
    }
  }
  return { requester: me, others: order.map((key) => byKey.get(key) as SessionUsage) };
}
