import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  BatchErrors,
  type BatchOutcome,
  BatchScheduler,
  type BatchSchedulerOptions,
  injectRateLimit,
  type UpstreamGraphQLRequest,
  type UpstreamReply,
} from "../../../../broker/batch/index.js";
import { isAoError } from "../../../../common/index.js";
import { loadGitHubSchema } from "../../../../github/index.js";
import { capturedGraphQLRequests } from "../../../support/traffic.js";
import { executeDeterministic, normalizeJson } from "./support/deterministic-executor.js";
import { createFakeGitHub, type FakeGitHub } from "./support/fake-github.js";

const schema = loadGitHubSchema();
const PR_VIEW = capturedGraphQLRequests().find((r) => r.file === "pr_view.md") ?? {
  query: "",
  variables: {},
};
const prView = (n: number) => ({ query: PR_VIEW.query, variables: { ...PR_VIEW.variables, pr_number: n } });
const viewer = { query: "{ viewer { login } }" };

let github: FakeGitHub;
let schedulers: BatchScheduler[];

function scheduler(
  options: Partial<BatchSchedulerOptions> = {},
  override?: Parameters<typeof createFakeGitHub>[0]["override"],
) {
  github = createFakeGitHub({ schema, override });
  const created = new BatchScheduler({ schema, send: github.send, ...options });
  schedulers.push(created);
  return created;
}

let nextId = 0;
function submit(
  s: BatchScheduler,
  member: { query: string; variables?: unknown },
  options: Parameters<BatchScheduler["submit"]>[1] = {},
) {
  nextId += 1;
  return s.submit({ id: `q${nextId}`, ...member }, options);
}

async function expectAloneAnswer(outcome: BatchOutcome, member: { query: string; variables?: unknown }) {
  expect(outcome.response.status).toBe(200);
  const alone = await executeDeterministic(schema, member);
  expect(normalizeJson(outcome.response.body)).toBe(normalizeJson(alone));
}

beforeEach(() => {
  vi.useFakeTimers();
  schedulers = [];
});

afterEach(async () => {
  for (const s of schedulers) await s.close();
  vi.useRealTimers();
});

describe("BatchScheduler", () => {
  describe("when members wait for partners", () => {
    it("sends the group when its earliest deadline arrives, not before", async () => {
      const s = scheduler();
      const slow = submit(s, prView(1), { batchClass: "repeat" });
      await vi.advanceTimersByTimeAsync(500);
      const fast = submit(s, prView(2), { batchClass: "interactive" });
      await vi.advanceTimersByTimeAsync(4);
      expect(github.calls).toHaveLength(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(github.calls).toHaveLength(1);
      expect(github.calls[0]?.kind).toBe("merged");
      const [a, b] = await Promise.all([slow, fast]);
      expect([a.waitedMs, b.waitedMs]).toEqual([505, 5]);
      expect([a.batched, a.batchSize, b.batched]).toEqual([true, 2, true]);
      await expectAloneAnswer(a, prView(1));
      await expectAloneAnswer(b, prView(2));
    });

    it("sends a member that found no partner alone, with rateLimit injected and stripped", async () => {
      const s = scheduler();
      const outcome = submit(s, viewer, { maxDelayMs: 20 });
      await vi.advanceTimersByTimeAsync(20);
      const result = await outcome;
      expect(result).toMatchObject({
        batched: false,
        batchSize: 1,
        aloneReason: "no-partner",
        costSource: "rateLimit",
      });
      expect(github.calls[0]?.query).toContain("aobRateLimit: rateLimit");
      expect(result.response.headers).not.toHaveProperty("content-length");
      await expectAloneAnswer(result, viewer);
    });

    it("sends at once when the group is full by members", async () => {
      const s = scheduler({ maxMembers: 3 });
      const outcomes = [1, 2, 3].map((n) => submit(s, prView(n), { batchClass: "watch" }));
      await vi.advanceTimersByTimeAsync(0);
      expect(github.calls).toHaveLength(1);
      expect((await Promise.all(outcomes)).map((o) => o.batchSize)).toEqual([3, 3, 3]);
    });

    it("starts a new group when the next member would push the merged cost over maxCost", async () => {
      // 60 requests each: two round to 1 point, three to 2.
      const heavy = (o: string) => ({
        query: `{ repository(owner: "${o}", name: "r") { issues(first: 59) { nodes { labels(first: 1) { totalCount } } } } }`,
      });
      const s = scheduler({ maxCost: 1 });
      const outcomes = ["a", "b", "c"].map((o) => submit(s, heavy(o), { maxDelayMs: 50 }));
      await vi.advanceTimersByTimeAsync(0);
      expect(github.calls.map((c) => c.memberIds.length)).toEqual([2]);
      await vi.advanceTimersByTimeAsync(50);
      expect(github.calls.map((c) => c.memberIds.length)).toEqual([2, 1]);
      expect((await Promise.all(outcomes)).map((o) => o.batchSize)).toEqual([2, 2, 1]);
    });

    it("starts a new group when the next member would push the merged nodes over maxNodes", async () => {
      const s = scheduler({ maxNodes: 150 });
      const outcomes = ["a", "b"].map((o) =>
        submit(s, {
          query: `{ repository(owner: "${o}", name: "r") { issues(first: 100) { nodes { number } } } }`,
        }),
      );
      await vi.advanceTimersByTimeAsync(5);
      expect(github.calls.map((c) => c.kind)).toEqual(["alone", "alone"]);
      await Promise.all(outcomes);
    });

    it("never merges members with different merge keys", async () => {
      const s = scheduler();
      const outcomes = [
        submit(s, prView(1), { mergeKey: "api.github.com|merge_queue" }),
        submit(s, prView(2), { mergeKey: "ghes.example|" }),
        submit(s, prView(3), { mergeKey: "api.github.com|merge_queue" }),
      ];
      await vi.advanceTimersByTimeAsync(5);
      expect(github.calls.map((c) => [c.mergeKey, c.memberIds.length])).toEqual([
        ["api.github.com|merge_queue", 2],
        ["ghes.example|", 1],
      ]);
      await Promise.all(outcomes);
    });

    it("gives the merged request the highest priority and the first member's headers", async () => {
      const s = scheduler();
      const outcomes = [
        submit(s, prView(1), {
          priority: "background",
          headers: { accept: "application/vnd.github.merge-info-preview+json" },
        }),
        submit(s, prView(2), { priority: "lifecycle", headers: { accept: "other" } }),
      ];
      await vi.advanceTimersByTimeAsync(5);
      expect(github.calls[0]).toMatchObject({
        priority: "lifecycle",
        headers: { accept: "application/vnd.github.merge-info-preview+json" },
      });
      await Promise.all(outcomes);
    });
  });

  describe("when 50 sessions ask gh pr view for their own PR at once", () => {
    it("sends one query costing round(50 × 8 / 100) = 4 points instead of 50, each answer as alone", async () => {
      const s = scheduler();
      const outcomes = Array.from({ length: 50 }, (_, i) => submit(s, prView(i + 1)));
      await vi.advanceTimersByTimeAsync(5);
      const results = await Promise.all(outcomes);
      expect(github.calls).toHaveLength(1);
      expect(github.points()).toBe(4);
      expect(results.reduce((sum, r) => sum + r.costShare, 0)).toBeCloseTo(4, 6);
      expect(results.every((r) => r.costSource === "rateLimit" && r.batched)).toBe(true);
      for (const [i, result] of results.entries()) await expectAloneAnswer(result, prView(i + 1));
      expect(s.stats()).toMatchObject({
        submitted: 50,
        batchedMembers: 50,
        mergedQueries: 1,
        pointsSpent: 4,
        pointsAlone: 50,
      });
    });
  });

  describe("when one member's own query fails", () => {
    it("gives the member with a missing PR exactly its answer alone while the others succeed", async () => {
      const s = scheduler();
      const members = [prView(3), prView(950), prView(4)];
      const outcomes = members.map((m) => submit(s, m));
      await vi.advanceTimersByTimeAsync(5);
      const results = await Promise.all(outcomes);
      expect(github.calls).toHaveLength(1);
      for (const [i, result] of results.entries())
        await expectAloneAnswer(result, members[i] as (typeof members)[number]);
      expect(results.map((r) => JSON.parse(r.response.body).errors?.[0]?.extensions?.type)).toEqual([
        undefined,
        "NOT_FOUND",
        undefined,
      ]);
    });

    it("sends a query that fails validation alone at once, without delaying or failing the others", async () => {
      const s = scheduler();
      const bad = { query: "{ viewer { loginn } }" };
      const good = [prView(1), prView(2)].map((m) => submit(s, m, { batchClass: "repeat" }));
      const refused = await submit(s, bad);
      expect(refused).toMatchObject({
        batched: false,
        aloneReason: "validation-error",
        costShare: 0,
        costSource: "none",
      });
      expect(JSON.parse(refused.response.body).errors[0].message).toMatch(/loginn/);
      await vi.advanceTimersByTimeAsync(1500);
      expect((await Promise.all(good)).map((r) => r.batchSize)).toEqual([2, 2]);
      expect(github.calls.map((c) => c.kind)).toEqual(["alone", "merged"]);
    });

    it("retries every member alone when a non-null root field nulls the merged data", async () => {
      const s = scheduler();
      const boom = {
        query: "query($q: String!) { search(query: $q, type: ISSUE, first: 1) { issueCount } }",
        variables: { q: "boom" },
      };
      const members = [prView(1), boom, viewer];
      const outcomes = members.map((m) => submit(s, m));
      await vi.advanceTimersByTimeAsync(5);
      const results = await Promise.all(outcomes);
      expect(github.calls.map((c) => c.kind)).toEqual(["merged", "retry", "retry", "retry"]);
      for (const [i, result] of results.entries()) {
        expect(result).toMatchObject({ retriedAlone: true, retryReason: "data-null", batched: false });
        await expectAloneAnswer(result, members[i] as (typeof members)[number]);
      }
      expect(JSON.parse(results[1]?.response.body ?? "{}").data).toBeNull();
    });
  });

  describe("when GitHub rejects the merged query", () => {
    it.each([
      { name: "an HTTP 502", reply: { status: 502, headers: {}, body: "Bad Gateway" } },
      {
        name: "top-level errors without data",
        reply: {
          status: 200,
          headers: {},
          body: JSON.stringify({ errors: [{ message: "Something went wrong" }] }),
        },
      },
    ])("retries each member alone after $name", async ({ reply }) => {
      const s = scheduler({}, (request) =>
        request.kind === "merged" ? (reply as UpstreamReply) : undefined,
      );
      const members = [prView(1), prView(2), viewer];
      const outcomes = members.map((m) => submit(s, m));
      await vi.advanceTimersByTimeAsync(5);
      const results = await Promise.all(outcomes);
      expect(github.calls.map((c) => c.kind)).toEqual(["merged", "retry", "retry", "retry"]);
      for (const [i, result] of results.entries()) {
        expect(result).toMatchObject({ retriedAlone: true, retryReason: "merged-rejected", batchSize: 1 });
        await expectAloneAnswer(result, members[i] as (typeof members)[number]);
      }
      expect(s.stats().retriedAlone).toBe(3);
    });

    it("hands a rate-limited reply to every member without retrying", async () => {
      const limited = JSON.stringify({
        errors: [{ type: "RATE_LIMITED", message: "API rate limit exceeded for user ID 1." }],
      });
      const s = scheduler({}, () => ({
        status: 200,
        headers: { "x-ratelimit-remaining": "0" },
        body: limited,
      }));
      const outcomes = [prView(1), prView(2)].map((m) => submit(s, m));
      await vi.advanceTimersByTimeAsync(5);
      const results = await Promise.all(outcomes);
      expect(github.calls).toHaveLength(1);
      expect(results.map((r) => r.response.body)).toEqual([limited, limited]);
      expect(results.map((r) => r.costShare)).toEqual([0, 0]);
    });

    it("rejects the group's members with the error when send itself fails", async () => {
      const failure = new Error("upstream queue closed");
      const s = new BatchScheduler({ schema, send: () => Promise.reject(failure) });
      schedulers.push(s);
      const outcomes = [prView(1), prView(2)].map((m) => submit(s, m).catch((e: unknown) => e));
      await vi.advanceTimersByTimeAsync(5);
      expect(await Promise.all(outcomes)).toEqual([failure, failure]);
    });

    it("resends a lone query without rateLimit when GitHub refuses the injected text", async () => {
      const injected = injectRateLimit(viewer.query);
      const column = (injected?.insertedAt ?? 0) + 2;
      const s = scheduler({}, (request) =>
        request.query.includes("aobRateLimit")
          ? {
              status: 200,
              headers: {},
              body: JSON.stringify({
                errors: [{ message: "Field 'rateLimit' doesn't exist", locations: [{ line: 1, column }] }],
              }),
            }
          : undefined,
      );
      const outcome = submit(s, viewer);
      await vi.advanceTimersByTimeAsync(5);
      const result = await outcome;
      expect(github.calls.map((c) => c.query.includes("aobRateLimit"))).toEqual([true, false]);
      expect(result.costSource).toBe("computed");
      await expectAloneAnswer(result, viewer);
    });
  });

  describe("when closing", () => {
    it("flushes waiting members and waits for their answers", async () => {
      vi.useRealTimers();
      const s = scheduler();
      const outcomes = [prView(1), prView(2)].map((m) => submit(s, m, { batchClass: "lifecycle" }));
      await s.close();
      expect(github.calls).toHaveLength(1);
      expect((await Promise.all(outcomes)).map((o) => o.batchSize)).toEqual([2, 2]);
      await expect(submit(s, viewer)).rejects.toSatisfy((e) => isAoError(e, BatchErrors.AO_ERR_BATCH_CLOSED));
    });

    it("rejects waiting members with AO_ERR_BATCH_CLOSED when asked not to flush", async () => {
      const s = scheduler();
      const outcome = submit(s, prView(1), { batchClass: "lifecycle" }).catch((e: unknown) => e);
      expect(s.pendingCount()).toBe(1);
      await s.close({ flush: false });
      expect(isAoError(await outcome, BatchErrors.AO_ERR_BATCH_CLOSED)).toBe(true);
      expect(github.calls).toHaveLength(0);
      expect(s.pendingCount()).toBe(0);
    });
  });

  describe("when configured wrongly", () => {
    it.each([{ maxMembers: 0 }, { maxCost: -1 }, { maxNodes: Number.NaN }, { budgetsMs: { repeat: -5 } }])(
      "throws AO_ERR_BATCH_INVALID_OPTIONS for %o",
      (options) => {
        expect(
          () =>
            new BatchScheduler({
              schema,
              send: async () => ({ status: 200, headers: {}, body: "" }),
              ...options,
            }),
        ).toThrow(expect.objectContaining({ code: BatchErrors.AO_ERR_BATCH_INVALID_OPTIONS }));
      },
    );
  });

  describe("when submitted a request that is not GraphQL", () => {
    it("rejects it with AO_ERR_BATCH_INVALID_MEMBER", async () => {
      const s = scheduler();
      await expect(s.submit({ id: "x", query: undefined as unknown as string })).rejects.toSatisfy((e) =>
        isAoError(e, BatchErrors.AO_ERR_BATCH_INVALID_MEMBER),
      );
    });
  });

  describe("with an injected clock", () => {
    it("uses it for deadlines and waiting times", async () => {
      let now = 1_000;
      const timers: { at: number; run: () => void }[] = [];
      const s = scheduler({
        clock: {
          now: () => now,
          setTimeout: (run, ms) => {
            const timer = { at: now + ms, run };
            timers.push(timer);
            return timer;
          },
          clearTimeout: (handle) => {
            const i = timers.indexOf(handle as (typeof timers)[number]);
            if (i >= 0) timers.splice(i, 1);
          },
        },
      });
      const outcome = submit(s, prView(1), { maxDelayMs: 250 });
      expect(timers.map((t) => t.at)).toEqual([1_250]);
      now = 1_250;
      timers.shift()?.run();
      const result = await outcome;
      expect(result.waitedMs).toBe(250);
      expect((github.calls[0] as UpstreamGraphQLRequest).kind).toBe("alone");
    });
  });
});

describe("BatchScheduler with a tight budget (tightBudget)", () => {
  const tightBudget = {
    growFrom: 0.9,
    fullAt: 1.2,
    maxWindowMs: 5_000,
    minPaceMs: 300_000,
    budgetWindowMs: 3_600_000,
  };
  /** The first answer reports the budget: `used` spent in the half hour gone, `remaining` left. */
  const reporting = (used: number, remaining: number) => (_r: UpstreamGraphQLRequest, call: number) =>
    call === 1
      ? {
          status: 200,
          headers: {
            "content-type": "application/json",
            "x-ratelimit-resource": "graphql",
            "x-ratelimit-limit": String(used + remaining),
            "x-ratelimit-remaining": String(remaining),
            "x-ratelimit-used": String(used),
            "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 1_800),
          },
          body: JSON.stringify({ data: { viewer: { login: "octocat" } } }),
        }
      : undefined;

  it("an interactive query waits up to maxWindowMs for partners once the pace would spend the budget before the reset", async () => {
    const s = scheduler({ tightBudget }, reporting(4_000, 1_000));
    await submit(s, viewer, { batchClass: "interactive", maxDelayMs: 0 });
    const a = submit(s, prView(1), { batchClass: "interactive" });
    await vi.advanceTimersByTimeAsync(1_000);
    const b = submit(s, prView(2), { batchClass: "interactive" });
    await vi.advanceTimersByTimeAsync(3_000);
    expect(github.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(github.calls).toHaveLength(2);
    expect(github.calls[1]?.kind).toBe("merged");
    const [x, y] = await Promise.all([a, b]);
    expect([x.batchSize, y.batchSize]).toEqual([2, 2]);
  });

  it("keeps the normal window while the pace fits the budget, and never grows the lifecycle's", async () => {
    const s = scheduler({ tightBudget }, reporting(1_000, 4_000));
    await submit(s, viewer, { batchClass: "interactive", maxDelayMs: 0 });
    const a = submit(s, prView(1), { batchClass: "interactive" });
    await vi.advanceTimersByTimeAsync(5);
    expect(github.calls).toHaveLength(2);
    await a;
    const t = scheduler({ tightBudget }, reporting(4_000, 1_000));
    await submit(t, viewer, { batchClass: "interactive", maxDelayMs: 0 });
    const l = submit(t, prView(3), { batchClass: "lifecycle" });
    await vi.advanceTimersByTimeAsync(50);
    expect(github.calls).toHaveLength(2);
    await l;
  });
});

describe("BatchScheduler holding a first-time read for a partner (partnerHold)", () => {
  const partnerHold = { windowMs: 600, minExpectedPartners: 0.1, rateWindowMs: 60_000, maxEntries: 1_000 };

  /** Other sessions' earlier queries (each alone), `count` of them, then the timers run out. */
  async function othersQueried(s: BatchScheduler, count: number) {
    for (let i = 0; i < count; i += 1) {
      const done = submit(s, viewer, { sessionId: `other${i}`, maxDelayMs: undefined, batchClass: "repeat" });
      await vi.advanceTimersByTimeAsync(600);
      await done;
    }
  }

  it("waits the hold once other sessions' arrivals predict a partner, and sends the pair as one query", async () => {
    const s = scheduler({ partnerHold });
    await othersQueried(s, 10);
    const before = github.calls.length;
    const a = submit(s, prView(1), { sessionId: "s1", batchClass: "interactive" });
    await vi.advanceTimersByTimeAsync(300);
    const b = submit(s, prView(2), { sessionId: "s2", batchClass: "interactive" });
    await vi.advanceTimersByTimeAsync(299);
    expect(github.calls).toHaveLength(before);
    await vi.advanceTimersByTimeAsync(1);
    expect(github.calls).toHaveLength(before + 1);
    expect(github.calls[before]?.kind).toBe("merged");
    const [x, y] = await Promise.all([a, b]);
    expect([x.batchSize, y.batchSize, x.waitedMs]).toEqual([2, 2, 600]);
    await expectAloneAnswer(x, prView(1));
  });

  it("keeps the few-ms window when too few other sessions query, or only the same session does", async () => {
    const s = scheduler({ partnerHold });
    await othersQueried(s, 9);
    const before = github.calls.length;
    const a = submit(s, prView(1), { sessionId: "s1", batchClass: "interactive" });
    await vi.advanceTimersByTimeAsync(5);
    expect(github.calls).toHaveLength(before + 1);
    await a;
    const t = scheduler({ partnerHold });
    for (let i = 0; i < 20; i += 1) {
      const done = submit(t, viewer, { sessionId: "s1", batchClass: "repeat" });
      await vi.advanceTimersByTimeAsync(600);
      await done;
    }
    const c = submit(t, prView(3), { sessionId: "s1", batchClass: "interactive" });
    await vi.advanceTimersByTimeAsync(5);
    expect(github.calls).toHaveLength(21);
    await c;
  });

  it("never holds the lifecycle's queries, and does not count them or refreshes as arrivals", async () => {
    const s = scheduler({ partnerHold });
    for (let i = 0; i < 20; i += 1) {
      const done = submit(s, viewer, { sessionId: `r${i}`, maxDelayMs: 10 });
      await vi.advanceTimersByTimeAsync(10);
      await done;
    }
    const l = submit(s, prView(4), { sessionId: "ao-lifecycle", batchClass: "lifecycle" });
    await vi.advanceTimersByTimeAsync(50);
    expect(github.calls).toHaveLength(21);
    await l;
    const a = submit(s, prView(5), { sessionId: "s1", batchClass: "interactive" });
    await vi.advanceTimersByTimeAsync(5);
    expect(github.calls).toHaveLength(22);
    await a;
  });

  it("with lifecycle on, holds the lifecycle's query too, so an agent's first read rides with it", async () => {
    const s = scheduler({ partnerHold: { ...partnerHold, lifecycle: true } });
    await othersQueried(s, 10);
    const before = github.calls.length;
    const l = submit(s, prView(4), { sessionId: "ao-lifecycle", batchClass: "lifecycle" });
    await vi.advanceTimersByTimeAsync(300);
    expect(github.calls).toHaveLength(before);
    const a = submit(s, prView(5), { sessionId: "s1", batchClass: "interactive" });
    await vi.advanceTimersByTimeAsync(300);
    expect(github.calls).toHaveLength(before + 1);
    expect(github.calls[before]?.kind).toBe("merged");
    const [x, y] = await Promise.all([l, a]);
    expect([x.batchSize, y.batchSize, x.waitedMs]).toEqual([2, 2, 600]);
    // A quiet broker (no other session's arrivals): the lifecycle keeps its 50 ms.
    const t = scheduler({ partnerHold: { ...partnerHold, lifecycle: true } });
    const q = submit(t, prView(6), { sessionId: "ao-lifecycle", batchClass: "lifecycle" });
    await vi.advanceTimersByTimeAsync(50);
    expect((await q).waitedMs).toBe(50);
  });
});
