/**
 * Many agents, one token: 20 sessions run `gh pr checks 1` through the shim at the same moment and
 * GitHub sees at most one call per query per freshness window; every invocation shows up in
 * `ao-broker sessions` under its own session with its command and what it cost. And whatever the
 * agent's environment holds, gh itself never gets the PAT: not in its environment, not in its
 * arguments, not from `gh auth token` or `gh auth status`.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectBroker } from "../../../client/index.js";
import {
  agentEnv,
  type Completed,
  checkout,
  fakeGh,
  home,
  installTestShim,
  run,
  type Scratch,
  type ShimBroker,
  scratch,
  startShimBroker,
} from "../../integration/agents-shim/harness.js";
import { runCli } from "../../support/cli-process.js";

const AGENT_PAT = "ghp_aPersonalAccessTokenInTheAgentsEnv01";
const SESSIONS = Array.from({ length: 20 }, (_, i) => `agent-${String(i + 1).padStart(2, "0")}`);

let work: Scratch;
let broker: ShimBroker;
let gh: string;
let bin: string;

const envFor = (session: string, extra: Record<string, string> = {}) =>
  agentEnv({
    bin,
    socket: broker.socketPath,
    home: home(work.dir, session),
    session,
    extra: { GH_REPO: "acme/widgets", ...extra },
  });

beforeAll(async () => {
  work = scratch("aob-shim-sessions-");
  bin = join(work.dir, "bin");
  gh = installTestShim(bin).shimPath;
  broker = await startShimBroker(join(work.dir, "broker"));
}, 60_000);

afterAll(async () => {
  await broker?.close();
  work?.cleanup();
});

describe("20 agents running gh pr checks 1 at once", () => {
  let results: Completed[];
  let upstream: Record<string, number>;
  let elapsedMs: number;

  beforeAll(async () => {
    // First use registers each session (the Node helper); `gh auth token` does that without an API call.
    const registered = await Promise.all(SESSIONS.map((s) => run(gh, ["auth", "token"], { env: envFor(s) })));
    expect(registered.every((r) => r.code === 0 && /^aob_s_/.test(r.stdout))).toBe(true);
    broker.upstream.reset();
    const started = Date.now();
    results = await Promise.all(SESSIONS.map((s) => run(gh, ["pr", "checks", "1"], { env: envFor(s) })));
    elapsedMs = Date.now() - started;
    upstream = broker.upstream.stats().requests.byOperation;
  }, 60_000);

  it("gives every agent gh's own answer", () => {
    for (const r of results) {
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(
        "test\tfail\t1m0s\thttp://github.localhost/acme/widgets/actions/runs/1001/job/2002",
      );
    }
  });

  it("costs GitHub at most one call per query per 10 s freshness window", () => {
    const windows = Math.ceil(elapsedMs / 10_000);
    expect(upstream.PullRequestByNumber ?? 0).toBeGreaterThanOrEqual(1);
    expect(upstream.PullRequestByNumber ?? 0).toBeLessThanOrEqual(windows);
    expect(upstream.PullRequestStatusChecks ?? 0).toBeLessThanOrEqual(windows);
    expect(broker.upstream.stats().requests.graphql).toBeLessThanOrEqual(2 * windows);
  });

  it("lists each invocation under its own session with its command and cost", async () => {
    const listed = await runCli(["sessions", "--socket", broker.socketPath, "--json"]);
    expect(listed.code).toBe(0);
    const { sessions } = JSON.parse(listed.stdout) as {
      sessions: {
        id: string;
        stats: { invocations: number; recentCommands: { command: string; cost: number }[] };
      }[];
    };
    let charged = 0;
    for (const id of SESSIONS) {
      const s = sessions.find((x) => x.id === id);
      expect(s?.stats.invocations).toBeGreaterThanOrEqual(1);
      const commands = s?.stats.recentCommands.filter((c) => c.command === "gh pr checks 1") ?? [];
      expect(commands.length).toBeGreaterThanOrEqual(1);
      for (const c of commands) {
        expect(c.cost).toBeGreaterThanOrEqual(0);
        charged += c.cost;
      }
    }
    // What the sessions were charged together is what GitHub charged, not 20 times it.
    expect(charged).toBeGreaterThan(0);
    // (Shares are rounded per session, so allow a few hundredths.)
    expect(charged).toBeLessThanOrEqual(broker.upstream.stats().graphqlPoints + 0.05);
    const table = await runCli(["sessions", "--socket", broker.socketPath]);
    expect(table.stdout).toMatch(/agent-01\s+acme\/widgets\s/);
    expect(table.stdout).toContain("gh pr checks 1");
  });
});

describe("without AO's session id", () => {
  it("makes each worktree its own session, named after it, with the repository from its remote", async () => {
    const [a, b] = [
      checkout(work.dir, "feature/a"),
      checkout(work.dir, "feature/b", { origin: "git@github.com:acme/gadgets.git" }),
    ];
    const env = (name: string) => agentEnv({ bin, socket: broker.socketPath, home: home(work.dir, name) });
    const [ra, rb, ra2] = await Promise.all([
      run(gh, ["pr", "view", "1", "--json", "number,title"], { env: env("wa"), cwd: a }),
      run(gh, ["auth", "token"], { env: env("wb"), cwd: join(b, ".git") }),
      run(gh, ["auth", "token"], { env: env("wa2"), cwd: a }),
    ]);
    expect(ra.stdout).toBe('{"number":1,"title":"Add widget frobnicator"}\n');
    expect(rb.code).toBe(0);
    expect(ra2.code).toBe(0);
    const client = await connectBroker({ socketPath: broker.socketPath });
    const { sessions } = await client.listSessions();
    await client.close();
    const worktrees = sessions.filter((s) => s.id.startsWith("wt-repo-"));
    expect(worktrees.map((s) => s.repo).sort()).toEqual(["acme/gadgets", "acme/widgets"]);
    expect(worktrees.find((s) => s.repo === "acme/widgets")?.worktree).toBe(a);
  });
});

describe("the PAT", () => {
  it("never reaches gh, whatever the agent's environment holds", async () => {
    const fake = fakeGh(work.dir);
    const result = await run(gh, ["pr", "view", "1", "--body", "x"], {
      env: envFor("pat-check", {
        AO_BROKER_GH: fake,
        GH_TOKEN: AGENT_PAT,
        GITHUB_TOKEN: AGENT_PAT,
        GH_ENTERPRISE_TOKEN: AGENT_PAT,
        GITHUB_ENTERPRISE_TOKEN: AGENT_PAT,
      }),
    });
    expect(result.code).toBe(0);
    const dump = result.stdout;
    expect(dump).toContain('"GH_HOST":"github.localhost"');
    expect(dump).not.toContain(AGENT_PAT);
    expect(dump).not.toContain(broker.upstream.token);
    expect(dump).toMatch(/"GH_TOKEN":"aob_s_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+"/);
  });

  it("is not what gh auth token prints, and gh auth status says how gh is authenticated", async () => {
    const env = envFor("pat-check", { GH_TOKEN: AGENT_PAT });
    const token = await run(gh, ["auth", "token"], { env });
    expect(token.code).toBe(0);
    expect(token.stdout).toMatch(/^aob_s_[A-Za-z0-9_-]{43}\n$/);
    const status = await run(gh, ["auth", "status"], { env });
    expect(status.code).toBe(0);
    expect(status.stderr).toContain("Logged in through ao-broker as session pat-check");
    expect(`${token.stdout}${status.stdout}${status.stderr}`).not.toContain(AGENT_PAT);
    expect(`${status.stdout}${status.stderr}`).not.toContain(token.stdout.trim());
  });

  it("is not used when the broker's token for the session is gone: the next command registers again", async () => {
    const env = envFor("revoked");
    expect((await run(gh, ["auth", "token"], { env })).code).toBe(0);
    const closed = await runCli(["session", "close", "revoked", "--socket", broker.socketPath]);
    expect(closed.code).toBe(0);
    const failed = await run(gh, ["pr", "view", "1", "--json", "number,title"], { env });
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain("401");
    // The failed command's exit report was refused too, and the shim dropped the cached token.
    let again: Completed | undefined;
    for (let i = 0; i < 40 && again?.code !== 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      again = await run(gh, ["pr", "view", "1", "--json", "number,title"], { env });
    }
    expect(again?.code).toBe(0);
    expect(again?.stdout).toBe('{"number":1,"title":"Add widget frobnicator"}\n');
  });
});
