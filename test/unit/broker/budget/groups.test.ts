import { describe, expect, it } from "vitest";
import { decideAdmission } from "../../../../broker/budget/core/admission.js";
import { type GroupedUsage, groupUsages, participantKey } from "../../../../broker/budget/core/groups.js";

const T = 1_700_000_000_000;
const s = (id: string, used: number, over: Partial<GroupedUsage> = {}): GroupedUsage => ({
  id,
  weight: 1,
  used,
  firstSeenAt: T,
  ...over,
});

describe("groupUsages", () => {
  it("leaves ungrouped sessions alone, in order", () => {
    const g = groupUsages(s("a", 1), [s("b", 2), s("c", 3)]);
    expect(g.requester).toMatchObject({ id: "a", used: 1 });
    expect(g.others.map((o) => o.id)).toEqual(["b", "c"]);
  });

  it("folds the requester's group into it: spend summed, largest weight, earliest start, latest refusal", () => {
    const g = groupUsages(s("a", 1, { group: "agent" }), [
      s("b", 2, { group: "agent", weight: 3, firstSeenAt: T - 5, deniedAt: T - 1 }),
      s("c", 4),
      s("d", 8, { group: "agent", deniedAt: T - 9 }),
    ]);
    expect(g.requester).toMatchObject({ id: "a", used: 11, weight: 3, firstSeenAt: T - 5, deniedAt: T - 1 });
    expect(g.others.map((o) => [o.id, o.used])).toEqual([["c", 4]]);
  });

  it("folds other groups into one participant each, at their first member's place", () => {
    const g = groupUsages(s("a", 0), [s("x1", 1, { group: "x" }), s("b", 2), s("x2", 5, { group: "x" })]);
    expect(g.others.map((o) => [o.id, o.used])).toEqual([
      ["x1", 6],
      ["b", 2],
    ]);
  });

  it("keys a session id and a group id apart even when the names are equal", () => {
    expect(participantKey(s("x", 0))).not.toBe(participantKey(s("y", 0, { group: "x" })));
  });
});

describe("fair share with a parent budget", () => {
  const claims = { hungryMs: 5_000, headroom: 0, floor: 1, minRateElapsedMs: 10_000 };
  const window = { limit: 120, remaining: 120, startAt: T - 1_000, resetAt: T + 60_000, estimated: false };

  it("twenty sessions of one agent get one share against five modest sessions, not twenty", () => {
    // Each modest session was refused just now: it is waiting, so it claims its whole share.
    const modest = ["m1", "m2", "m3", "m4", "m5"].map((id) => s(id, 0, { deniedAt: T }));
    const greedy = Array.from({ length: 20 }, (_, i) => s(`g${i}`, 1, { group: "auto:agent" }));
    const [me, ...rest] = greedy;
    const grouped = decideAdmission({
      window: { ...window, remaining: 100 },
      reserved: 0,
      requester: me as GroupedUsage,
      others: [...rest, ...modest],
      cost: 1,
      reserveFraction: 0,
      exempt: false,
      now: T,
      claims,
    });
    // pool 100 + 20 = 120, six participants: share 20, the agent has 20 → it needs surplus; the
    // five modest claim 5 × 20 = 100 of the 100 left: refused.
    expect(grouped).toMatchObject({ admitted: false, reason: "fair-share", share: 20, used: 20 });
    const ungrouped = decideAdmission({
      window: { ...window, remaining: 100 },
      reserved: 0,
      requester: { ...(me as GroupedUsage), group: undefined },
      others: [...rest.map((g) => ({ ...g, group: undefined })), ...modest],
      cost: 1,
      reserveFraction: 0,
      exempt: false,
      now: T,
      claims,
    });
    // As twenty participants each holds 1 of a 120/25 = 4.8 share: admitted, twenty times over.
    expect(ungrouped).toMatchObject({ admitted: true, reason: "within-share" });
  });
});
