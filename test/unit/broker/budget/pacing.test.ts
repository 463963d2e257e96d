import { describe, expect, it } from "vitest";
import {
  type AdmissionInput,
  decideAdmission,
  type SessionUsage,
} from "../../../../broker/budget/core/admission.js";
import {
  decidePace,
  isPaced,
  type PacePolicy,
  paceAllowance,
  paceBurst,
  paceKeep,
  paceTimeFor,
} from "../../../../broker/budget/core/pacing.js";
import type { BudgetWindow } from "../../../../broker/budget/core/window.js";

const T = 1_700_000_000_000;
const pace: PacePolicy = { burstFraction: 0.1, burstMin: 0, keepFraction: 0.02 };
/** 400 requests per 60 s: 40 at once, then 6⅔ a second. */
const win = (over: Partial<BudgetWindow> = {}): BudgetWindow => ({
  limit: 400,
  remaining: 400,
  startAt: T,
  resetAt: T + 60_000,
  estimated: false,
  ...over,
});

describe("paceAllowance", () => {
  it("starts at the burst and grows with the refill rate up to the limit", () => {
    expect(paceAllowance(win(), T, pace)).toBe(40);
    expect(paceAllowance(win(), T + 30_000, pace)).toBe(240);
    expect(paceAllowance(win(), T + 60_000, pace)).toBe(400);
    expect(paceAllowance(win(), T + 90_000, pace)).toBe(400);
    expect(paceAllowance(win(), T - 5_000, pace)).toBe(40);
  });

  it("is the whole window when the burst covers it (pacing off, or a window under burstMin)", () => {
    expect(paceAllowance(win(), T, { ...pace, burstFraction: 1 })).toBe(400);
    expect(isPaced(400, { ...pace, burstMin: 400 })).toBe(false);
    expect(isPaced(30, { ...pace, burstMin: 100 })).toBe(false);
    expect(isPaced(5000, { ...pace, burstMin: 100 })).toBe(true);
    expect(paceBurst(5000, { ...pace, burstMin: 100 })).toBe(500);
    expect(paceBurst(400, { ...pace, burstMin: 100 })).toBe(100);
  });
});

describe("paceTimeFor", () => {
  it("is now within the burst, the refill time beyond it, the reset past the limit", () => {
    expect(paceTimeFor(win(), 40, T, pace)).toBe(T);
    expect(paceTimeFor(win(), 240, T, pace)).toBe(T + 30_000);
    expect(paceTimeFor(win(), 401, T, pace)).toBe(T + 60_000);
    // Never in the past.
    expect(paceTimeFor(win(), 100, T + 50_000, pace)).toBe(T + 50_000);
  });
});

describe("decidePace", () => {
  const base = { reserved: 0, now: T + 6_000, cost: 1, used: 0, surplus: false, policy: pace };

  it("admits within the allowance (40 + 6 s × 6⅔ = 80)", () => {
    const d = decidePace({ ...base, window: win({ remaining: 321 }) });
    expect(d).toMatchObject({ admitted: true, keep: 0 });
    expect(d.paced).toBeCloseTo(1);
  });

  it("refuses past the allowance, with the time the refill covers the request", () => {
    const d = decidePace({ ...base, window: win({ remaining: 320 }) });
    expect(d.admitted).toBe(false);
    // 81 needed: 40 + 41 × 150 ms.
    expect(d.retryAt).toBe(T + 6_150);
  });

  it("counts in-flight reservations, but the earliest time ignores them", () => {
    const d = decidePace({ ...base, window: win({ remaining: 330 }), reserved: 15 });
    expect(d.admitted).toBe(false);
    expect(d.retryAt).toBe(T + 6_900); // 70 spent + 15 held + 1: 86 = 40 + 46 × 150 ms
    expect(d.earliestAt).toBe(T + 6_000); // 71 without the reservations: a release would let it pass now
  });

  it("makes a heavy session leave `keep` for lighter ones", () => {
    expect(paceKeep(400, pace)).toBe(8);
    const w = win({ remaining: 325 }); // 75 spent, 5 paced
    expect(decidePace({ ...base, window: w, used: 3 }).admitted).toBe(true); // light
    expect(decidePace({ ...base, window: w, used: 8 })).toMatchObject({ admitted: false, keep: 8 }); // spent a keep
    expect(decidePace({ ...base, window: w, used: 0, surplus: true }).admitted).toBe(false); // beyond its share
  });

  it("admits anything when the window is not paced", () => {
    const d = decidePace({ ...base, window: win({ remaining: 1 }), policy: { ...pace, burstMin: 400 } });
    expect(d.admitted).toBe(true);
  });
});

describe("decideAdmission with pacing", () => {
  const claims = { hungryMs: 5_000, headroom: 2, floor: 1, minRateElapsedMs: 10_000 };
  const usage = (id: string, used: number, over: Partial<SessionUsage> = {}): SessionUsage => ({
    id,
    weight: 1,
    used,
    firstSeenAt: T,
    ...over,
  });
  const input = (over: Partial<AdmissionInput>): AdmissionInput => ({
    window: win(),
    reserved: 0,
    requester: usage("s", 0),
    others: [],
    cost: 1,
    reserveFraction: 0.1,
    exempt: false,
    now: T + 6_000,
    claims,
    pace,
    ...over,
  });

  it("refuses reason pace after fairness passed, and says when", () => {
    const d = decideAdmission(input({ window: win({ remaining: 320 }), requester: usage("greedy", 80) }));
    expect(d).toMatchObject({ admitted: false, reason: "pace" });
    expect(d.retryAt).toBeGreaterThan(T + 6_000);
  });

  it("exempts lifecycle from the pace (it has its reserve)", () => {
    const d = decideAdmission(input({ window: win({ remaining: 320 }), exempt: true, reserveFraction: 0 }));
    expect(d).toMatchObject({ admitted: true, reason: "exempt" });
  });

  it("a 'budget' refusal is certain until the reset when no reservation could free enough", () => {
    const spent = decideAdmission(input({ window: win({ remaining: 40 }), reserveFraction: 0.1 }));
    expect(spent).toMatchObject({ admitted: false, reason: "budget", earliestAt: T + 60_000 });
    const held = decideAdmission(input({ window: win({ remaining: 45 }), reserved: 5 }));
    expect(held).toMatchObject({ admitted: false, reason: "budget", earliestAt: T + 6_000 });
  });

  it("without a pace policy decides as before", () => {
    const d = decideAdmission(input({ window: win({ remaining: 320 }), pace: undefined }));
    expect(d).toMatchObject({ admitted: true, reason: "within-share" });
  });
});

/**
 * Issue 17's scenario, tick by tick on the pure rule: a 400-request window of 60 s, reserve 10 %,
 * a greedy session asking every 10 ms from t = 0, five modest ones asking once a second from
 * t = 8 s. Every modest request passes on its first try; the greedy one never exceeds the pace.
 */
describe("a greedy first-comer against five modest sessions", () => {
  it("starves nobody and is paced", () => {
    const claims = { hungryMs: 5_000, headroom: 2, floor: 1, minRateElapsedMs: 10_000 };
    const policy: PacePolicy = { burstFraction: 0.1, burstMin: 0, keepFraction: 0.02 };
    let remaining = 400;
    const used = new Map<string, number>();
    const first = new Map<string, number>();
    const denied = new Map<string, number>();
    const usageOf = (id: string): SessionUsage => ({
      id,
      weight: 1,
      used: used.get(id) ?? 0,
      firstSeenAt: first.get(id) ?? T,
      deniedAt: denied.get(id),
    });
    const modest = ["m1", "m2", "m3", "m4", "m5"];
    let modestRefused = 0;
    let modestServed = 0;
    const ask = (id: string, now: number): boolean => {
      if (!first.has(id)) first.set(id, now);
      const active = ["greedy", ...modest].filter((s) => s !== id && first.has(s));
      const d = decideAdmission({
        window: win({ remaining }),
        reserved: 0,
        requester: usageOf(id),
        others: active.map(usageOf),
        cost: 1,
        reserveFraction: 0.1,
        exempt: false,
        now,
        claims,
        pace: policy,
      });
      if (d.admitted) {
        remaining -= 1;
        used.set(id, (used.get(id) ?? 0) + 1);
      } else denied.set(id, now);
      return d.admitted;
    };
    let greedyAt8s = 0;
    for (let t = 0; t < 30_000; t += 10) {
      const now = T + t;
      if (t === 8_000) greedyAt8s = used.get("greedy") ?? 0;
      if (t >= 8_000 && t % 1_000 === 0)
        for (const m of modest) {
          if (ask(m, now)) modestServed++;
          else modestRefused++;
        }
      ask("greedy", now);
      expect(400 - remaining).toBeLessThanOrEqual(paceAllowance(win(), now, policy));
    }
    expect(modestRefused).toBe(0);
    expect(modestServed).toBe(5 * 22);
    // Alone for 8 s it had the pace, less what it leaves for newcomers: 40 + 8 s × 6⅔ − 8 = 85
    // (unpaced it took 353 of 360 in that time).
    expect(greedyAt8s).toBeGreaterThanOrEqual(84);
    expect(greedyAt8s).toBeLessThanOrEqual(86);
    // Afterwards it gets what the modest ones' projected demand leaves; it still got some.
    expect(used.get("greedy") ?? 0).toBeGreaterThan(greedyAt8s);
  });
});
