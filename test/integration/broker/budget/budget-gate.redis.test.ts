import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type Admission,
  BudgetErrors,
  BudgetGate,
  type BudgetGateOptions,
} from "../../../../broker/budget/index.js";
import { createRedisClient } from "../../../../broker/redis/index.js";
import { isAoError } from "../../../../common/index.js";
import { startTestRedis, type TestRedis } from "../../../support/redis.js";
import { manualClock } from "./clocks.js";

let redis: TestRedis;
const gates: BudgetGate[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis.stop();
});
afterEach(async () => {
  await Promise.all(gates.splice(0).map((g) => g.close()));
});

const T = 1_700_000_000_000;

async function gate(over: Partial<BudgetGateOptions> & { prefix: string }): Promise<BudgetGate> {
  const g = await BudgetGate.create({
    redis: redis.url,
    ...over,
    policy: {
      reserve: { lifecycle: 0, interactive: 0 },
      defaultLimits: { graphql: 10, core: 10 },
      windowMs: { default: 60_000 },
      ...over.policy,
    },
  });
  gates.push(g);
  return g;
}

/** Resolves once the gate has refused `sessionId` at least once: its waiter is really waiting. */
async function untilRefused(g: BudgetGate, sessionId: string, resource = "graphql"): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const state = await g.readState(resource);
    if (state.active.some((a) => a.id === sessionId && a.deniedAt !== undefined)) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`${sessionId} was never refused`);
}

const req = (sessionId: string, cost = 1, over: Record<string, unknown> = {}) => ({
  sessionId,
  priority: "interactive" as const,
  resource: "graphql",
  cost,
  deadlineAt: T + 60_000,
  ...over,
});

describe("BudgetGate", () => {
  describe("when a request is admitted and settled", () => {
    it("reserves the estimate, then charges the real cost and takes GitHub's report", async () => {
      const clock = manualClock(T);
      const g = await gate({ prefix: redis.prefix(), clock });
      const d = await g.tryAdmit(req("s1", 3));
      expect(d.admitted).toBe(true);
      const admission = (d as { admission: Admission }).admission;
      expect(admission).toMatchObject({ sessionId: "s1", cost: 3, reason: "within-share", admittedAt: T });
      let state = await g.readState("graphql");
      expect(state).toMatchObject({ reserved: 3, inFlight: 1 });
      expect(state.active.map((a) => [a.id, a.held])).toEqual([["s1", 3]]);

      await g.settle(admission, {
        cost: 2,
        rateLimit: { resource: "graphql", limit: 10, remaining: 8, used: 2, reset: (T + 30_000) / 1000 },
      });
      state = await g.readState("graphql");
      expect(state).toMatchObject({ reserved: 0, inFlight: 0 });
      expect(state.window).toMatchObject({ limit: 10, remaining: 8, resetAt: T + 30_000, estimated: false });
      expect(state.windowSpend.get("s1")).toBe(2);
      expect(state.totals.get("s1")).toBe(2);
    });

    it("lowers remaining by the real cost when the answer carried no report", async () => {
      const g = await gate({ prefix: redis.prefix(), clock: manualClock(T) });
      const d = await g.tryAdmit(req("s1", 4));
      if (!d.admitted) throw new Error("expected admission");
      await g.settle(d.admission, 3);
      expect((await g.readState("graphql")).window.remaining).toBe(7);
    });

    it("splits a batched query's cost over its sessions", async () => {
      const g = await gate({ prefix: redis.prefix(), clock: manualClock(T) });
      const d = await g.tryAdmit(req("batch", 1));
      if (!d.admitted) throw new Error("expected admission");
      await g.settle(d.admission, {
        cost: 1,
        charges: [
          { sessionId: "a", cost: 0.5 },
          { sessionId: "b", cost: 0.25 },
          { sessionId: "c", cost: 0.25 },
        ],
      });
      const spend = await g.sessionSpend();
      const byId = Object.fromEntries(spend.map((s) => [s.sessionId, s.windowUsed]));
      expect(byId).toMatchObject({ a: 0.5, b: 0.25, c: 0.25 });
      expect(byId.batch ?? 0).toBe(0);
    });

    it("admits a free request without touching the budget", async () => {
      const g = await gate({ prefix: redis.prefix(), clock: manualClock(T) });
      const d = await g.tryAdmit(req("s1", 0));
      expect(d).toMatchObject({ admitted: true, admission: { cost: 0, reason: "free" } });
      expect((await g.readState("graphql")).reserved).toBe(0);
    });
  });

  describe("when the budget is spent", () => {
    it("tryAdmit says when to come back without waiting", async () => {
      const g = await gate({ prefix: redis.prefix(), clock: manualClock(T) });
      await g.observe({ resource: "graphql", limit: 10, remaining: 0, used: 10, reset: (T + 20_000) / 1000 });
      const d = await g.tryAdmit(req("s1"));
      expect(d).toMatchObject({
        admitted: false,
        reason: "budget",
        retryAt: T + 21_000,
        resetAt: T + 20_000,
      });
    });

    it("admit gives up at the deadline with what GitHub's rate-limit answer needs", async () => {
      const clock = manualClock(T);
      const g = await gate({ prefix: redis.prefix(), clock });
      // The last point is held in flight by s0: its release could let s1 in, so s1 must wait
      // (a refusal no release could lift is answered at once: the next test).
      await g.observe({ resource: "graphql", limit: 10, remaining: 1, used: 9, reset: (T + 20_000) / 1000 });
      expect((await g.tryAdmit(req("s0"))).admitted).toBe(true);
      const waiting = g.admit(req("s1", 1, { deadlineAt: T + 5_000 })).catch((e: unknown) => e);
      await untilRefused(g, "s1");
      clock.advance(5_000);
      const err = await waiting;
      expect(isAoError(err, BudgetErrors.AO_ERR_BUDGET_EXHAUSTED)).toBe(true);
      expect((err as { data: unknown }).data).toMatchObject({
        resource: "graphql",
        limit: 10,
        remaining: 0,
        reset: (T + 20_000) / 1000,
        reason: "budget",
        waitedMs: 5_000,
      });
      expect((err as { httpStatus: number }).httpStatus).toBe(403);
    });

    it("admit refuses at once when no release could help before the deadline (predictable)", async () => {
      const clock = manualClock(T);
      const g = await gate({ prefix: redis.prefix(), clock });
      await g.observe({ resource: "graphql", limit: 10, remaining: 0, used: 10, reset: (T + 20_000) / 1000 });
      const err = await g.admit(req("s1", 1, { deadlineAt: T + 5_000 })).catch((e: unknown) => e);
      expect(isAoError(err, BudgetErrors.AO_ERR_BUDGET_EXHAUSTED)).toBe(true);
      expect((err as { data: unknown }).data).toMatchObject({
        reason: "budget",
        predicted: true,
        waitedMs: 0,
        retryAt: T + 21_000,
        retryAfter: 21,
      });
    });

    it("admit waits through the reset and gets in once the window refills", async () => {
      const clock = manualClock(T);
      const g = await gate({ prefix: redis.prefix(), clock });
      await g.observe({ resource: "graphql", limit: 10, remaining: 0, used: 10, reset: (T + 20_000) / 1000 });
      const waiting = g.admit(req("s1", 1, { deadlineAt: T + 60_000 }));
      await untilRefused(g, "s1");
      // While it waits, the gate says who waits and for which rule (ao-broker budget shows it).
      expect(g.waiting()).toEqual([
        { sessionId: "s1", resource: "graphql", reason: "budget", retryAt: T + 21_000, since: T },
      ]);
      clock.advance(21_000);
      const admission = await waiting;
      expect(admission).toMatchObject({ reason: "within-share", waitedMs: 21_000 });
      expect(g.waiting()).toEqual([]);
      const state = await g.readState("graphql");
      expect(state.window).toMatchObject({ remaining: 10, estimated: true });
    });

    it("forgets per-session spend when the window rolls, but keeps totals", async () => {
      const clock = manualClock(T);
      const g = await gate({ prefix: redis.prefix(), clock });
      const d = await g.tryAdmit(req("s1", 2));
      if (!d.admitted) throw new Error("expected admission");
      await g.settle(d.admission, 2);
      clock.advance(61_001);
      const [spend] = await g.sessionSpend();
      expect(spend).toMatchObject({ sessionId: "s1", windowUsed: 0, totalUsed: 2 });
    });
  });

  describe("when a waiter's budget is freed by another broker", () => {
    it("wakes on the pub/sub message instead of its poll interval", async () => {
      const prefix = redis.prefix();
      // Real time (Redis TIME), a poll interval far longer than the test allows.
      const policy = { pollMs: 20_000, hungryMs: 30_000 };
      const a = await gate({ prefix, policy });
      const b = await gate({ prefix, policy });
      const held = await a.tryAdmit({ ...req("s1", 10), deadlineAt: Date.now() + 60_000 });
      if (!held.admitted) throw new Error("expected admission");
      const started = Date.now();
      const waiting = b.admit({ ...req("s1", 1), deadlineAt: Date.now() + 60_000 });
      await untilRefused(b, "s1");
      await a.release(held.admission);
      const admission = await waiting;
      // Well inside the 20 s poll interval: the release's message woke it.
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(admission.reason).toBe("within-share");
    });
  });

  describe("when a broker crashes holding reservations", () => {
    it("its reservations expire and the budget comes back", async () => {
      const prefix = redis.prefix();
      const clock = manualClock(T);
      const crashed = await gate({ prefix, clock, policy: { reservationTtlMs: 10_000 } });
      const survivor = await gate({ prefix, clock, policy: { reservationTtlMs: 10_000 } });
      expect((await crashed.tryAdmit(req("s1", 10))).admitted).toBe(true);
      await crashed.close();
      expect(await survivor.tryAdmit(req("s2", 1))).toMatchObject({ admitted: false, reason: "budget" });
      clock.advance(10_001);
      expect((await survivor.tryAdmit(req("s2", 1))).admitted).toBe(true);
      expect((await survivor.readState("graphql")).reserved).toBe(1);
    });
  });

  describe("when two brokers share one Redis", () => {
    it("their concurrent admissions never exceed one budget", async () => {
      const prefix = redis.prefix();
      const clock = manualClock(T);
      const a = await gate({ prefix, clock, policy: { defaultLimits: { graphql: 15 } } });
      const b = await gate({ prefix, clock, policy: { defaultLimits: { graphql: 15 } } });
      const decisions = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 ? a : b).tryAdmit({ ...req(`s${i % 3}`), priority: "lifecycle" }),
        ),
      );
      expect(decisions.filter((d) => d.admitted)).toHaveLength(15);
      expect((await a.readState("graphql")).reserved).toBe(15);
    });
  });

  describe("reserves", () => {
    it("keeps the lifecycle reserve from background work, and lets lifecycle spend it", async () => {
      const g = await gate({
        prefix: redis.prefix(),
        clock: manualClock(T),
        policy: { reserve: { lifecycle: 0.2, interactive: 0.1 }, defaultLimits: { graphql: 10 } },
      });
      const background = await Promise.all(
        Array.from({ length: 10 }, () => g.tryAdmit({ ...req("bg"), priority: "background" })),
      );
      expect(background.filter((d) => d.admitted)).toHaveLength(7);
      expect((await g.tryAdmit({ ...req("agent"), priority: "interactive" })).admitted).toBe(true);
      expect((await g.tryAdmit({ ...req("agent"), priority: "interactive" })).admitted).toBe(false);
      expect((await g.tryAdmit({ ...req("poller"), priority: "lifecycle" })).admitted).toBe(true);
      expect((await g.tryAdmit({ ...req("poller"), priority: "lifecycle" })).admitted).toBe(true);
      expect((await g.tryAdmit({ ...req("poller"), priority: "lifecycle" })).admitted).toBe(false);
    });
  });

  describe("views", () => {
    it("shows a session its fair share as its limit and its spend as used", async () => {
      const clock = manualClock(T);
      const g = await gate({ prefix: redis.prefix(), clock, policy: { defaultLimits: { graphql: 100 } } });
      for (const [sid, cost] of [
        ["a", 10],
        ["b", 30],
      ] as const) {
        const d = await g.tryAdmit(req(sid, cost, { weight: sid === "b" ? 3 : 1 }));
        if (!d.admitted) throw new Error("expected admission");
        await g.settle(d.admission, cost);
      }
      // Before any snapshot the view is the default; the call starts a refresh.
      expect(g.sessionView("a", "graphql")).toMatchObject({ limit: 100, remaining: 100, used: 0 });
      for (let i = 0; i < 200 && g.sessionView("a", "graphql").limit === 100; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      // pool = 60 left + 40 spent = 100; a has weight 1 of 4 → 25, spent 10
      expect(g.sessionView("a", "graphql")).toEqual({
        resource: "graphql",
        limit: 25,
        remaining: 15,
        used: 10,
        reset: Math.ceil((T + 60_000) / 1000),
        windowLimit: 100,
      });
      expect(g.sessionView("b", "graphql", 3)).toMatchObject({ limit: 75, remaining: 45, used: 30 });
    });

    it("shows the global bucket with reservations, activity and the projection to the reset", async () => {
      const clock = manualClock(T);
      const g = await gate({ prefix: redis.prefix(), clock, policy: { windowMs: { default: 3_600_000 } } });
      await g.observe({
        resource: "graphql",
        limit: 5000,
        remaining: 4000,
        used: 1000,
        reset: (T + 1_800_000) / 1000,
      });
      const d = await g.tryAdmit(req("s1", 5));
      expect(d.admitted).toBe(true);
      const views = await g.globalView();
      expect(views.map((v) => v.resource)).toEqual(["core", "graphql"]);
      expect(views[1]).toMatchObject({
        resource: "graphql",
        limit: 5000,
        remaining: 4000,
        used: 1000,
        reset: (T + 1_800_000) / 1000,
        estimated: false,
        reserved: 5,
        inFlight: 1,
        projectedAtReset: 2000,
        ratePerHour: 2000,
        activeSessions: 1,
      });
      expect(views[0]).toMatchObject({ resource: "core", limit: 10, remaining: 10, estimated: true });
    });

    it("forgets a closed session", async () => {
      const g = await gate({ prefix: redis.prefix(), clock: manualClock(T) });
      const d = await g.tryAdmit(req("gone", 1));
      if (!d.admitted) throw new Error("expected admission");
      await g.settle(d.admission, 1);
      await g.forgetSession("gone");
      expect((await g.sessionSpend()).map((s) => s.sessionId)).toEqual([]);
    });
  });

  describe("bad input and shutdown", () => {
    it.each([
      { name: "an empty session id", r: req("") },
      { name: "a session id with the member separator", r: req("a|b") },
      { name: "a negative cost", r: req("s", -1) },
      { name: "a weight of zero", r: req("s", 1, { weight: 0 }) },
      { name: "a resource with spaces", r: req("s", 1, { resource: "core search" }) },
    ])("refuses $name with AO_ERR_BUDGET_BAD_REQUEST", async ({ r }) => {
      const g = await gate({ prefix: redis.prefix(), clock: manualClock(T) });
      const err = await g.tryAdmit(r as never).catch((e: unknown) => e);
      expect(isAoError(err, BudgetErrors.AO_ERR_BUDGET_BAD_REQUEST)).toBe(true);
    });

    it("ends a waiter with AO_ERR_BUDGET_CLOSED on close and refuses calls afterwards", async () => {
      const g = await gate({ prefix: redis.prefix(), clock: manualClock(T) });
      await g.observe({ resource: "graphql", limit: 10, remaining: 0, used: 10, reset: (T + 20_000) / 1000 });
      const waiting = g.admit(req("s1")).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 20));
      await g.close();
      expect(isAoError(await waiting, BudgetErrors.AO_ERR_BUDGET_CLOSED)).toBe(true);
      expect(
        isAoError(await g.tryAdmit(req("s1")).catch((e: unknown) => e), BudgetErrors.AO_ERR_BUDGET_CLOSED),
      ).toBe(true);
    });

    it("ends a waiter with AO_ERR_BUDGET_ABORTED when its caller gives up", async () => {
      const g = await gate({ prefix: redis.prefix(), clock: manualClock(T) });
      await g.observe({ resource: "graphql", limit: 10, remaining: 0, used: 10, reset: (T + 20_000) / 1000 });
      const ac = new AbortController();
      const waiting = g.admit(req("s1"), { signal: ac.signal }).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 20));
      ac.abort();
      expect(isAoError(await waiting, BudgetErrors.AO_ERR_BUDGET_ABORTED)).toBe(true);
    });

    it("keeps all its keys under one hash tag", async () => {
      const prefix = redis.prefix();
      const g = await gate({ prefix, clock: manualClock(T) });
      const d = await g.tryAdmit(req("s1", 2));
      if (!d.admitted) throw new Error("expected admission");
      await g.settle(d.admission, 1);
      const client = createRedisClient(redis.url);
      const keys = await client.keys(`*${prefix}*`);
      client.disconnect();
      expect(keys.length).toBeGreaterThanOrEqual(4);
      for (const key of keys) expect(key.startsWith(`{${prefix}:budget}:`)).toBe(true);
    });
  });
});
