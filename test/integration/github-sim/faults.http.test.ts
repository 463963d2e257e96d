/**
 * The simulator's fault injection (POST /_sim/faults and sim.setFaults): 5xx bursts, timeouts,
 * slow answers, connection resets, secondary-limit storms with retry-after, and a budget spent
 * earlier than the headers said — each observed from a plain HTTP client, with the plan's own
 * counters.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { gql, rest } from "./support.js";

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ limits: { core: 50, graphql: 50, search: 10 } });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.setFaults(undefined);
  sim.reset();
});

const admin = (method: string, body?: unknown) =>
  rest<{ installed: boolean; rules: { matched: number; fired: number }[]; message?: string }>(
    sim,
    "/_sim/faults",
    {
      method,
      token: null,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    },
  );

const pull = () => rest(sim, "/repos/acme/widgets/pulls/1");
const QUERY = 'query { repository(owner: "acme", name: "widgets") { pullRequest(number: 1) { title } } }';

describe("simulator fault injection", () => {
  describe("when a 5xx burst is installed over the admin API", () => {
    it("answers the burst's requests with the status, then serves normally, and counts them", async () => {
      const installed = await admin("POST", {
        rules: [{ match: { kind: "rest" }, action: { type: "status", status: 502 }, count: 3 }],
      });
      expect(installed.status).toBe(200);
      expect(installed.json.installed).toBe(true);
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await pull()).status);
      expect(statuses).toEqual([502, 502, 502, 200, 200]);
      // GraphQL does not match a REST rule.
      expect((await gql(sim, QUERY)).status).toBe(200);
      const report = await admin("GET");
      expect(report.json.rules[0]).toMatchObject({ matched: 5, fired: 3 });
      expect((await admin("DELETE")).json.installed).toBe(false);
    });
  });

  describe("when a secondary-limit storm is installed", () => {
    it("refuses with GitHub's 403, its message and retry-after", async () => {
      sim.setFaults({ rules: [{ action: { type: "secondary-limit", retryAfterSeconds: 7 }, count: 2 }] });
      const first = await gql(sim, QUERY);
      expect(first.status).toBe(403);
      expect(first.headers["retry-after"]).toBe("7");
      expect(first.text).toContain("secondary rate limit");
      expect((await pull()).status).toBe(403);
      expect((await pull()).status).toBe(200);
      expect(sim.faultReport()?.[0]).toMatchObject({ matched: 3, fired: 2 });
    });
  });

  describe("when the budget is spent earlier than the headers said", () => {
    it("refuses the next request as rate limited although the last answer showed budget left", async () => {
      const before = await pull();
      expect(Number(before.headers["x-ratelimit-remaining"])).toBeGreaterThan(40);
      sim.setFaults({ rules: [{ match: { kind: "rest" }, action: { type: "exhaust" }, count: 1 }] });
      const refused = await pull();
      expect([403, 429]).toContain(refused.status);
      expect(refused.headers["x-ratelimit-remaining"]).toBe("0");
      // GraphQL has its own bucket, untouched.
      expect((await gql(sim, QUERY)).json.errors).toBeUndefined();
    });
  });

  describe("when answers are slow", () => {
    it("answers late but correctly", async () => {
      sim.setFaults({ rules: [{ action: { type: "slow", delayMs: 300 } }] });
      const started = Date.now();
      const reply = await pull();
      expect(reply.status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    });
  });

  describe("when connections are reset or time out", () => {
    it("drops the connection without an answer, at once or after the timeout", async () => {
      sim.setFaults({
        rules: [
          {
            match: { method: "GET", pathPrefix: "/repos/acme/widgets/pulls/1" },
            action: { type: "reset" },
            count: 1,
          },
          { match: { pathPrefix: "/repos/acme/widgets/pulls/2" }, action: { type: "timeout", afterMs: 400 } },
        ],
      });
      await expect(pull()).rejects.toThrow();
      const started = Date.now();
      await expect(rest(sim, "/repos/acme/widgets/pulls/2")).rejects.toThrow();
      expect(Date.now() - started).toBeGreaterThanOrEqual(390);
      expect((await pull()).status).toBe(200);
    });
  });

  describe("when faults fire with a probability", () => {
    it("fires about that often, the same way for the same seed", async () => {
      const run = async () => {
        sim.reset(); // the core limit here is 50 a window
        sim.setFaults({ seed: 42, rules: [{ action: { type: "status", status: 503 }, probability: 0.3 }] });
        const statuses: number[] = [];
        for (let i = 0; i < 45; i++) statuses.push((await pull()).status);
        return statuses;
      };
      const first = await run();
      const second = await run();
      expect(second).toEqual(first);
      const failed = first.filter((s) => s === 503).length;
      expect(failed).toBeGreaterThan(4);
      expect(failed).toBeLessThan(27);
      expect(first.every((s) => s === 200 || s === 503)).toBe(true);
    });
  });

  describe("when a plan is invalid", () => {
    it("answers 400 naming the problem and keeps the plan in force", async () => {
      sim.setFaults({ rules: [{ action: { type: "status", status: 500 }, count: 1 }] });
      const refused = await admin("POST", { rules: [{ action: { type: "explode" } }] });
      expect(refused.status).toBe(400);
      expect(refused.json.message).toContain("rules.0.action");
      expect((await rest(sim, "/_sim/faults", { method: "POST", body: "{nope", token: null })).status).toBe(
        400,
      );
      expect((await pull()).status).toBe(500);
      expect(() => sim.setFaults({ rules: [{ action: { type: "slow" } }] } as never)).toThrow(
        /invalid fault plan/,
      );
    });
  });
});
