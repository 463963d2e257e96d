/**
 * GitHub misbehaving (issue 9), injected by the simulator's fault plan, seen through a whole broker
 * (gateway → pipeline → budget → BullMQ queue → upstream client). Every request that reaches the
 * simulator is recorded with its arrival time, so the tests measure the broker's own traffic
 * against its policy: reads retried at most readAttempts times with the backoff's spacing, writes
 * sent once, one global pause per secondary-limit signal with nothing sent during it, a spent
 * bucket held until its reset while other buckets flow — and callers see waits, not errors.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_UPSTREAM_POLICY } from "../../../broker/upstream/index.js";
import { type FaultPlanInput, type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { type BrokerUnderTest, startBrokerUnderTest } from "../../support/broker-harness.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

interface Call {
  readonly at: number;
  readonly method: string;
  readonly path: string;
  status?: number;
}

let redis: TestRedis;
let sim: RunningSimulator;
let broker: BrokerUnderTest;
let token: string;
let calls: Call[] = [];

const WINDOW_SECONDS = 4;

beforeAll(async () => {
  redis = await startTestRedis();
  sim = await startSimulator({ port: 0, windowSeconds: WINDOW_SECONDS });
  broker = await startBrokerUnderTest({
    redisUrl: redis.url,
    prefix: redis.prefix(),
    upstreamUrl: sim.url,
    config: {
      upstream: { url: sim.url, forwardClientHost: true, timeoutMs: 1_000 },
      cache: { restFreshMs: 0, graphqlFreshMs: { checks: 0, pullRequest: 0, issue: 0, other: 0 } },
      batching: { enabled: false },
      gateway: { defaultDeadlineMs: 20_000 },
      budget: { reserve: { lifecycle: 0, interactive: 0 } },
    },
  });
  token = (await broker.openSession("faulty")).token;
}, 60_000);

afterAll(async () => {
  await broker?.close();
  await sim?.close();
  await redis?.stop();
});

beforeEach(() => {
  sim.setFaults(undefined);
});

/** Installs a fault plan and records every request that reaches the simulator. */
function install(plan: FaultPlanInput): void {
  calls = [];
  const inner = sim.setFaults(plan);
  sim.setFaults({
    intercept(request, next) {
      const call: Call = { at: Date.now(), method: request.method, path: request.path };
      calls.push(call);
      return (inner?.intercept(request, next) ?? next(request)).then((response) => {
        call.status = response.destroy ? 0 : response.status;
        return response;
      });
    },
  });
}

async function gateway(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string; ms: number }> {
  const started = Date.now();
  const res = await fetch(`${broker.broker.gatewayUrl}${path}`, {
    method,
    headers: { authorization: `token ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, text: await res.text(), ms: Date.now() - started };
}

const commentsOn = (issue: number) => sim.world.repo("acme/widgets")?.issues.get(issue)?.comments.length ?? 0;
const callsTo = (method: string, path: string) => calls.filter((c) => c.method === method && c.path === path);

describe("the broker when GitHub misbehaves", () => {
  describe("when reads meet a 5xx burst", () => {
    it("retries each read at most readAttempts times, spaced by the backoff, and answers them all", async () => {
      // Every read fails until 8 failures have been served: the first attempts and some retries.
      install({
        rules: [
          {
            match: { kind: "rest", method: "GET", pathPrefix: "/repos/acme/widgets/issues/" },
            action: { type: "status", status: 502 },
            count: 8,
          },
        ],
      });
      const issues = [10, 11, 12];
      const answers = await Promise.all(issues.map((n) => gateway("GET", `/repos/acme/widgets/issues/${n}`)));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      const { readAttempts, backoffBaseMs } = DEFAULT_UPSTREAM_POLICY;
      for (const n of issues) {
        const mine = callsTo("GET", `/repos/acme/widgets/issues/${n}`);
        expect(mine.length).toBeGreaterThan(1);
        expect(mine.length).toBeLessThanOrEqual(readAttempts);
        // Equal jitter: retry k waits at least half of base × 2^(k-1).
        for (let k = 1; k < mine.length; k++) {
          const gap = (mine[k]?.at ?? 0) - (mine[k - 1]?.at ?? 0);
          expect(gap).toBeGreaterThanOrEqual((backoffBaseMs * 2 ** (k - 1)) / 2 - 20);
        }
      }
      // No retry storm: all three reads together made at most 3 × readAttempts calls.
      expect(calls.length).toBeLessThanOrEqual(issues.length * readAttempts);
    });
  });

  describe("when a write meets a 5xx, a timeout or a reset", () => {
    it("sends it once and tells the caller: GitHub's 5xx as sent, otherwise outcome unknown", async () => {
      const path = "/repos/acme/widgets/issues/12/comments";
      install({
        rules: [
          { match: { method: "POST", pathPrefix: path }, action: { type: "status", status: 503 }, count: 1 },
          {
            match: { method: "POST", pathPrefix: path },
            action: { type: "timeout", afterMs: 3_000 },
            count: 1,
          },
          { match: { method: "POST", pathPrefix: path }, action: { type: "reset" }, count: 1 },
        ],
      });
      const before = commentsOn(12);
      const fiveHundred = await gateway("POST", path, { body: "one" });
      expect(fiveHundred.status).toBe(503);
      const timedOut = await gateway("POST", path, { body: "two" });
      expect(timedOut.status).toBe(502);
      expect(timedOut.text).toMatch(/write outcome unknown/);
      const reset = await gateway("POST", path, { body: "three" });
      expect(reset.status).toBe(502);
      expect(reset.text).toMatch(/write outcome unknown/);
      await new Promise((r) => setTimeout(r, 1_500));
      // Three writes, three sends: nothing repeated behind the callers' backs.
      expect(callsTo("POST", path)).toHaveLength(3);
      expect(commentsOn(12)).toBe(before);
      const fine = await gateway("POST", path, { body: "four" });
      expect(fine.status).toBe(201);
      expect(commentsOn(12)).toBe(before + 1);
    });
  });

  describe("when reads time out, are reset or are slow", () => {
    it("retries timeouts and resets, waits for slow answers, and never duplicates a call that answered", async () => {
      install({
        rules: [
          {
            match: { pathPrefix: "/repos/acme/widgets/pulls/1" },
            action: { type: "timeout", afterMs: 5_000 },
            count: 1,
          },
          { match: { pathPrefix: "/repos/acme/widgets/pulls/2" }, action: { type: "reset" }, count: 2 },
          { match: { pathPrefix: "/repos/acme/widgets/pulls/3" }, action: { type: "slow", delayMs: 700 } },
        ],
      });
      const [timedOut, reset, slow] = await Promise.all([
        gateway("GET", "/repos/acme/widgets/pulls/1"),
        gateway("GET", "/repos/acme/widgets/pulls/2"),
        gateway("GET", "/repos/acme/widgets/pulls/3"),
      ]);
      expect([timedOut.status, reset.status, slow.status]).toEqual([200, 200, 200]);
      expect(callsTo("GET", "/repos/acme/widgets/pulls/1")).toHaveLength(2);
      expect(callsTo("GET", "/repos/acme/widgets/pulls/2")).toHaveLength(3);
      expect(callsTo("GET", "/repos/acme/widgets/pulls/3")).toHaveLength(1);
      expect(slow.ms).toBeGreaterThanOrEqual(690);
    });
  });

  describe("when GitHub answers with a secondary-limit storm", () => {
    it("pauses all upstream traffic once per signal, sends nothing during the pause, and answers everyone after it", async () => {
      const { pausesStartedAllBrokers: pausesBefore } = await queueStats();
      install({ rules: [{ action: { type: "secondary-limit", retryAfterSeconds: 2 }, count: 3 }] });
      const started = Date.now();
      const paths = [
        "/repos/acme/widgets/pulls/1",
        "/repos/acme/widgets/pulls/2",
        "/repos/acme/widgets/issues/10",
        "/repos/acme/widgets/issues/11",
      ];
      const answers = await Promise.all([
        ...paths.map((p) => gateway("GET", p)),
        gateway("POST", "/graphql", {
          query: '{ repository(owner: "acme", name: "widgets") { issue(number: 12) { title } } }',
        }),
      ]);
      // Waits, not errors.
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
      expect(answers.every((a) => !a.text.includes("secondary rate limit"))).toBe(true);
      const refused = calls.filter((c) => c.status === 403);
      expect(refused).toHaveLength(3);
      const firstSignal = Math.min(...refused.map((c) => c.at));
      const lastSignal = Math.max(...refused.map((c) => c.at));
      // Nothing was sent while the pause ran (requests already on the wire when it began excepted).
      const duringPause = calls.filter((c) => c.at > lastSignal + 100 && c.at < firstSignal + 2_000 - 100);
      expect(duringPause).toEqual([]);
      expect(Math.max(...answers.map((a) => a.ms))).toBeGreaterThanOrEqual(1_800);
      // ...and nobody waits much past the last pause (workers re-poll within a second).
      expect(started + Math.max(...answers.map((a) => a.ms))).toBeLessThan(lastSignal + 2_000 + 1_500);
      // One global pause for signals that arrived within it (a pause is only ever extended).
      const { pausesStartedAllBrokers } = await queueStats();
      expect(pausesStartedAllBrokers - pausesBefore).toBeGreaterThanOrEqual(1);
      expect(pausesStartedAllBrokers - pausesBefore).toBeLessThanOrEqual(refused.length);
    });
  });

  describe("when the budget turns out spent earlier than the headers said", () => {
    it("holds that bucket until its reset, keeps the others flowing, and answers the waiting caller", async () => {
      // Learn the current window from the headers, then exhaust it behind the broker's back.
      await gateway("GET", "/repos/acme/widgets");
      install({ rules: [{ match: { kind: "rest" }, action: { type: "exhaust" }, count: 1 }] });
      // A path never read before: no validator, so no free 304 (GitHub serves those even when spent).
      const waiting = gateway("GET", "/repos/acme/widgets/issues/10/comments");
      await new Promise((r) => setTimeout(r, 300));
      const graphql = await gateway("POST", "/graphql", {
        query: '{ repository(owner: "acme", name: "widgets") { pullRequest(number: 2) { title } } }',
      });
      expect(graphql.status).toBe(200);
      expect(graphql.ms).toBeLessThan(1_500);
      // GET /rate_limit costs nothing, so a spent core bucket does not hold it either.
      const rateLimit = await gateway("GET", "/rate_limit");
      expect(rateLimit.status).toBe(200);
      expect(rateLimit.ms).toBeLessThan(1_500);
      const answer = await waiting;
      expect(answer.status).toBe(200);
      // It waited for the window to roll instead of failing.
      expect(answer.ms).toBeGreaterThan(500);
      expect(answer.ms).toBeLessThan(WINDOW_SECONDS * 1000 + 4_000);
      const rest = calls.filter((c) => c.path !== "/graphql" && c.path !== "/rate_limit");
      const limited = rest.filter((c) => c.status === 403 || c.status === 429);
      expect(limited.length).toBe(1);
      // After the refusal, no REST call until the bucket's reset: held, not hammered.
      expect(rest.length).toBeLessThanOrEqual(3);
      expect(sim.stats().requests.rateLimited).toBeLessThanOrEqual(1);
    });
  });
});

async function queueStats(): Promise<{ pausesStartedAllBrokers: number }> {
  const { connectBroker } = await import("../../../client/index.js");
  const client = await connectBroker({ socketPath: broker.broker.socketPath });
  try {
    const stats = (await client.stats()) as unknown as { queue: { pausesStartedAllBrokers: number } };
    return stats.queue;
  } finally {
    await client.close();
  }
}
