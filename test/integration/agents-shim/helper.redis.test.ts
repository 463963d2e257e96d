/**
 * The shim's Node helper against a real broker (private redis-server, simulated upstream): session
 * registration and its cache file, auto-registration on and off, the broker-down policies, `gh auth
 * status`, exit reports sent without curl, and the budget-wait notice on a nearly spent budget.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  authStatus,
  budgetWaitNotice,
  flushSpool,
  parseCacheRecord,
  registerSession,
} from "../../../agents-shim/index.js";
import { createRedisClient, invocationSuffix } from "../../../broker/index.js";
import { connectBroker } from "../../../client/index.js";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { checkout, type Scratch, type ShimBroker, scratch, startShimBroker } from "./harness.js";

let work: Scratch;
let shim: ShimBroker;
let tight: ShimBroker;
let tightSim: RunningSimulator;
let n = 0;

function capture(): { write: (text: string) => void; text: () => string } {
  let out = "";
  return {
    write: (t) => {
      out += t;
    },
    text: () => out,
  };
}

const paths = () => {
  n += 1;
  return { cache: join(work.dir, "state", "sessions", `k${n}`), state: join(work.dir, "state") };
};

beforeAll(async () => {
  work = scratch("aob-shim-helper-");
  shim = await startShimBroker(join(work.dir, "b1"));
  tightSim = await startSimulator({ limits: { graphql: 10 }, windowSeconds: 600 });
  tight = await startShimBroker(join(work.dir, "b2"), {
    upstream: tightSim,
    config: { budget: { reserve: { lifecycle: 0, interactive: 0 } } },
  });
}, 60_000);

afterAll(async () => {
  await shim?.close();
  await tight?.close();
  await tightSim?.close();
  work?.cleanup();
});

describe("registerSession", () => {
  describe("when the broker does not know the session", () => {
    it("opens it with AO's project and issue, and caches its token 0600", async () => {
      const { cache, state } = paths();
      const err = capture();
      const code = await registerSession({
        cache,
        state,
        id: "proj-12",
        repo: "github.com/acme/widgets",
        socket: shim.socketPath,
        fallback: "fail",
        cwd: work.dir,
        env: { AO_PROJECT_ID: "proj", AO_ISSUE_ID: "12" },
        stderr: err.write,
      });
      expect(err.text()).toBe("");
      expect(code).toBe(0);
      expect(statSync(cache).mode & 0o777).toBe(0o600);
      const record = parseCacheRecord(readFileSync(cache, "utf8"));
      expect(record).toMatchObject({
        gateway: shim.gatewayUrl,
        socket: shim.socketPath,
        session: "proj-12",
        repo: "acme/widgets",
      });
      expect(record.token).toMatch(/^aob_s_/);
      const client = await connectBroker({ socketPath: shim.socketPath });
      const { sessions } = await client.listSessions();
      await client.close();
      expect(sessions.find((s) => s.id === "proj-12")).toMatchObject({ projectId: "proj", issueId: "12" });
    });

    it("names a worktree's session after it and finds the repository in its git remotes", async () => {
      const repo = checkout(work.dir, "feature", { origin: "git@github.com:acme/gadgets.git" });
      const { cache, state } = paths();
      const code = await registerSession({
        cache,
        state,
        toplevel: repo,
        socket: shim.socketPath,
        fallback: "fail",
        cwd: repo,
        env: {},
      });
      expect(code).toBe(0);
      const record = parseCacheRecord(readFileSync(cache, "utf8"));
      expect(record.session).toMatch(/^wt-repo-.+-[0-9a-f]{10}$/);
      expect(record.repo).toBe("acme/gadgets");
    });

    it("refuses it when auto-registration is off, naming the way out", async () => {
      const { cache, state } = paths();
      const err = capture();
      const code = await registerSession({
        cache,
        state,
        id: "never-opened",
        socket: shim.socketPath,
        fallback: "fail",
        cwd: work.dir,
        env: { AO_BROKER_AUTO_REGISTER: "0" },
        stderr: err.write,
      });
      expect(code).toBe(4);
      expect(err.text()).toContain("ao-broker session open never-opened");
      expect(err.text()).toContain("AO_ERR_SHIM_SESSION_REFUSED");
    });
  });

  describe("when AO opened the session already", () => {
    it("joins it (auto-registration off is fine) and keeps its repository", async () => {
      const client = await connectBroker({ socketPath: shim.socketPath });
      await client.openSession({ id: "ao-opened", repo: "acme/widgets" });
      await client.close();
      const { cache, state } = paths();
      const code = await registerSession({
        cache,
        state,
        id: "ao-opened",
        repo: "other/repo",
        socket: shim.socketPath,
        fallback: "fail",
        cwd: work.dir,
        env: { AO_BROKER_AUTO_REGISTER: "0" },
      });
      expect(code).toBe(0);
      expect(parseCacheRecord(readFileSync(cache, "utf8")).repo).toBe("acme/widgets");
    });
  });

  describe("when the broker is down", () => {
    it("exits 3 and says gh was not run (fail)", async () => {
      const { cache, state } = paths();
      const err = capture();
      const code = await registerSession({
        cache,
        state,
        id: "x",
        socket: join(work.dir, "none.sock"),
        fallback: "fail",
        cwd: work.dir,
        env: {},
        stderr: err.write,
      });
      expect(code).toBe(3);
      expect(err.text()).toContain("no broker listening on");
      expect(err.text()).toContain("gh was not run");
    });

    it("exits 3 and warns at most once an hour (direct)", async () => {
      const state = join(work.dir, "direct-state");
      const err = capture();
      let now = 1_000_000_000_000;
      const once = () =>
        registerSession({
          cache: join(state, "sessions", "x"),
          state,
          id: "x",
          socket: join(work.dir, "none.sock"),
          fallback: "direct",
          cwd: work.dir,
          env: {},
          stderr: err.write,
          now: () => now,
        });
      expect(await once()).toBe(3);
      now += 30 * 60_000;
      expect(await once()).toBe(3);
      now += 31 * 60_000;
      expect(await once()).toBe(3);
      expect(err.text().match(/talks to GitHub directly/g)).toHaveLength(2);
    });
  });
});

describe("authStatus", () => {
  it("reports the session and never a token value", async () => {
    const err = capture();
    expect(
      await authStatus({
        gateway: shim.gatewayUrl,
        socket: shim.socketPath,
        session: "proj-12",
        stderr: err.write,
      }),
    ).toBe(0);
    expect(err.text()).toContain("Logged in through ao-broker as session proj-12 (repository acme/widgets)");
    expect(err.text()).toContain(shim.gatewayUrl);
    expect(err.text()).not.toMatch(/aob_s_[A-Za-z0-9_-]{10}/);
  });
  it("fails for a session the broker does not have", async () => {
    const err = capture();
    expect(
      await authStatus({
        gateway: shim.gatewayUrl,
        socket: shim.socketPath,
        session: "gone",
        stderr: err.write,
      }),
    ).toBe(1);
    expect(err.text()).toContain('no open session "gone"');
  });
});

describe("flushSpool", () => {
  it("records each invocation's exit on the broker, and drops the cache when a token is refused", async () => {
    const { cache, state } = paths();
    await registerSession({
      cache,
      state,
      id: "flusher",
      socket: shim.socketPath,
      fallback: "fail",
      cwd: work.dir,
      env: {},
    });
    const { token } = parseCacheRecord(readFileSync(cache, "utf8"));
    const derived = `${token}.${invocationSuffix({ id: "flush-invocation-1", argv: ["pr", "view", "1"], cwd: "/w" })}`;
    const spool = join(work.dir, "spool-1");
    writeFileSync(spool, `3 250 - ${shim.gatewayUrl} ${derived}\n`);
    await flushSpool({ spool, cache });
    const redis = createRedisClient(shim.redis.url);
    const record = await redis.hgetall(`${shim.prefix}:invocation:flush-invocation-1`);
    await redis.quit();
    expect(record).toMatchObject({
      sessionId: "flusher",
      command: "gh pr view 1",
      exitCode: "3",
      durationMs: "250",
    });
    expect(() => statSync(spool)).toThrow();
    expect(() => statSync(cache)).not.toThrow();

    writeFileSync(
      spool,
      `0 5 - ${shim.gatewayUrl} aob_s_${"Z".repeat(43)}.${invocationSuffix({ id: "flush-invocation-2", argv: [] })}\n`,
    );
    await flushSpool({ spool, cache });
    expect(() => statSync(cache)).toThrow();
  });
});

describe("budgetWaitNotice", () => {
  it("says nothing while the budget is healthy", async () => {
    const err = capture();
    expect(
      await budgetWaitNotice({ socket: shim.socketPath, pid: process.pid, pollMs: 20, stderr: err.write }),
    ).toBe(0);
    expect(err.text()).toBe("");
  });

  it("says once how long gh waits when the budget is nearly spent", async () => {
    const client = await connectBroker({ socketPath: tight.socketPath });
    await client.openSession({ id: "spender", repo: "acme/widgets" });
    for (let i = 0; i < 9; i++) {
      await client.graphql({
        sessionId: "spender",
        query: `{ viewer { login v${i}: login } }`,
        deadlineMs: 5000,
      });
    }
    await client.close();
    const err = capture();
    let polls = 0;
    const started = Date.now();
    await budgetWaitNotice({
      socket: tight.socketPath,
      pid: process.pid,
      pollMs: 20,
      maxMs: 300,
      stderr: err.write,
      now: () => {
        polls += 1;
        return Date.now();
      },
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(polls).toBeGreaterThan(3);
    const lines = err.text().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/GitHub's graphql budget is nearly spent \(1 of 10 GraphQL points left/);
    expect(lines[0]).toMatch(/refills at \d\d:\d\d:\d\d UTC \(in about \d+m\d\ds\)/);
  });
});
