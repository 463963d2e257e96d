/**
 * The daemon as users run it: `ao-broker start --simulate` as a child process, real gh 2.23 through
 * the session environment `session open` prints, the admin commands, and a clean drain on SIGTERM.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { directGhEnv, type LongRunning, runCli, runProcess, startCli } from "../../support/cli-process.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

let redis: TestRedis;
let dir: string;
let broker: LongRunning;
let socket: string;
let gateway: string;
let simUrl: string;
let sessionEnv: Record<string, string>;

const brokerEnv = () => ({
  REDIS_URL: redis.url,
  AO_BROKER_STATE_DIR: join(dir, "state"),
  GITHUB_TOKEN: "",
  GH_TOKEN: "",
});

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function startBrokerProcess(): Promise<LongRunning> {
  const started = await startCli(
    ["start", "--simulate", "--listen", "127.0.0.1:0", "--socket", socket],
    /open a session/,
    brokerEnv(),
  );
  gateway = /gateway\s+(\S+)/.exec(started.output())?.[1] ?? "";
  simUrl = /upstream\s+(\S+)/.exec(started.output())?.[1] ?? "";
  return started;
}

beforeAll(async () => {
  redis = await startTestRedis();
  dir = mkdtempSync(join(tmpdir(), "aob-e2e-"));
  socket = join(dir, "broker.sock");
  broker = await startBrokerProcess();
  const opened = await runCli([
    "session",
    "open",
    "s1",
    "--repo",
    "acme/widgets",
    "--socket",
    socket,
    "--json",
  ]);
  expect(opened.code).toBe(0);
  const parsed = JSON.parse(opened.stdout) as { token: string; env: Record<string, string> };
  expect(parsed.token).toMatch(/^aob_s_/);
  sessionEnv = {
    ...parsed.env,
    GH_CONFIG_DIR: join(dir, "gh"),
    GH_NO_UPDATE_NOTIFIER: "1",
    GH_PROMPT_DISABLED: "1",
  };
}, 60_000);

afterAll(async () => {
  broker?.child.kill("SIGKILL");
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("ao-broker start --simulate", () => {
  it("prints where it listens", () => {
    expect(gateway).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(simUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(broker.output()).toContain(socket);
  });

  describe("when real gh runs with the session's environment", () => {
    it.each([
      { name: "pr view", args: ["pr", "view", "1"] },
      { name: "pr checks (failing: exit 1)", args: ["pr", "checks", "1"] },
      { name: "issue view", args: ["issue", "view", "10"] },
      { name: "pr list --json", args: ["pr", "list", "--json", "number,title,headRefName"] },
      { name: "api REST", args: ["api", "repos/acme/widgets/pulls/1"] },
    ])("$name prints exactly what gh straight to the simulator prints", async ({ args }) => {
      const [viaBroker, direct] = await Promise.all([
        runProcess("gh", args, sessionEnv),
        runProcess("gh", args, { ...directGhEnv(simUrl), GH_CONFIG_DIR: join(dir, "gh-direct") }),
      ]);
      expect(viaBroker.stderr).toBe(direct.stderr);
      expect(viaBroker.stdout).toBe(direct.stdout);
      expect(viaBroker.code).toBe(direct.code);
      expect(viaBroker.stdout.length).toBeGreaterThan(10);
    });

    it("never lets the session see the PAT: the token it holds is a broker token", () => {
      expect(sessionEnv.GH_TOKEN).toMatch(/^aob_s_/);
      expect(JSON.stringify(sessionEnv)).not.toContain("ghp_simulated");
    });
  });

  describe("the admin commands", () => {
    it("sessions --json shows the session's requests and spend", async () => {
      const result = await runCli(["sessions", "--socket", socket, "--json"]);
      expect(result.code).toBe(0);
      const { sessions } = JSON.parse(result.stdout) as {
        sessions: { id: string; stats: { requests: number; graphqlPoints: number } }[];
      };
      const s1 = sessions.find((s) => s.id === "s1");
      expect(s1?.stats.requests).toBeGreaterThan(0);
      expect(s1?.stats.graphqlPoints).toBeGreaterThan(0);
    });

    it("status --json names the gateway, socket, Redis and the simulated upstream, and no secret", async () => {
      const result = await runCli(["status", "--socket", socket, "--json"]);
      expect(result.code).toBe(0);
      const status = JSON.parse(result.stdout) as Record<string, unknown>;
      expect(status.gatewayUrl).toBe(gateway);
      expect(status.upstream).toBe(simUrl);
      expect(status.simulated).toBe(true);
      expect(result.stdout).not.toContain("ghp_simulated");
    });

    it("status in text names the simulated upstream by its URL", async () => {
      const result = await runCli(["status", "--socket", socket]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`upstream  ${simUrl} (embedded simulator)`);
    });

    it("budget --json reports GitHub's buckets as the simulator counts them", async () => {
      const result = await runCli(["budget", "--socket", socket, "--json"]);
      const budget = JSON.parse(result.stdout) as {
        resources: Record<string, { limit: number; used: number }>;
      };
      expect(budget.resources.graphql?.limit).toBe(5000);
      const stats = (await (await fetch(`${simUrl}/_sim/stats`)).json()) as {
        resources: { graphql: { used: number } };
      };
      expect(budget.resources.graphql?.used).toBeLessThanOrEqual(stats.resources.graphql.used);
    });

    it("session close revokes the session's token at once", async () => {
      const opened = JSON.parse(
        (await runCli(["session", "open", "s2", "--repo", "acme/widgets", "--socket", socket, "--json"]))
          .stdout,
      ) as {
        env: Record<string, string>;
      };
      const env = { ...opened.env, GH_CONFIG_DIR: join(dir, "gh2") };
      expect((await runProcess("gh", ["api", "user"], env)).code).toBe(0);
      const closed = await runCli(["session", "close", "s2", "--socket", socket]);
      expect(closed.stdout).toMatch(/closed s2: \d+ token\(s\) revoked/);
      const after = await runProcess("gh", ["api", "user"], env);
      expect(after.code).not.toBe(0);
      expect(after.stderr).toMatch(/Bad credentials|401/);
    });
  });

  describe("restarts and shutdown", () => {
    it("drains and exits 0 on SIGTERM, and the session's token works again after a restart", async () => {
      broker.child.kill("SIGTERM");
      expect(await broker.exited).toBe(0);
      broker = await startBrokerProcess();
      const after = await runProcess("gh", ["api", "repos/acme/widgets/pulls/2", "--jq", ".number"], {
        ...sessionEnv,
        HTTP_PROXY: gateway,
        http_proxy: gateway,
      });
      expect(after.stdout.trim()).toBe("2");
    });

    it("`ao-broker stop` stops it with exit 0", async () => {
      const stop = await runCli(["stop", "--socket", socket]);
      expect(stop.code).toBe(0);
      expect(await broker.exited).toBe(0);
    });
  });
});

describe("ao-broker start whose Redis dies under it", () => {
  it("still ends on SIGTERM, promptly and with exit 0, naming what it left behind", async () => {
    const own = await startTestRedis();
    const started = await startCli(
      ["start", "--simulate", "--listen", "127.0.0.1:0", "--socket", join(dir, "orphan.sock")],
      /open a session/,
      { ...brokerEnv(), REDIS_URL: own.url, AO_BROKER_STATE_DIR: join(dir, "orphan-state") },
    );
    try {
      await own.stop();
      // Let the broker notice: the steps that need Redis are then given a short deadline.
      await waitFor(() => started.output().includes("Redis unreachable"), 10_000);
      const signalled = Date.now();
      started.child.kill("SIGTERM");
      expect(await started.exited).toBe(0);
      // Before, the steps waiting on Redis never returned and only SIGKILL ended the daemon.
      expect(Date.now() - signalled).toBeLessThan(15_000);
      expect(started.output()).toMatch(/"step":"[^"]+".*did not finish in time/);
      expect(started.output()).toContain("ao-broker stopped");
    } finally {
      started.child.kill("SIGKILL");
    }
  }, 40_000);
});

describe("ao-broker start refuses bad set-ups clearly", () => {
  it("without a token and without --simulate", async () => {
    const result = await runCli(["start", "--listen", "127.0.0.1:0", "--socket", join(dir, "x.sock")], {
      ...brokerEnv(),
      GITHUB_TOKEN: "",
      GH_TOKEN: "",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no GitHub token: set GITHUB_TOKEN or GH_TOKEN/);
  });

  it("with a config file whose key has the wrong type, naming the key", async () => {
    const file = join(dir, "bad.json");
    writeFileSync(file, JSON.stringify({ cache: { restFreshMs: "soon" } }));
    const result = await runCli(["start", "--simulate", "--config", file], brokerEnv());
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`config file ${file}: cache.restFreshMs`);
  });

  it("with an unknown config key", async () => {
    const file = join(dir, "typo.json");
    writeFileSync(file, JSON.stringify({ cahce: {} }));
    const result = await runCli(["start", "--simulate", "--config", file], brokerEnv());
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Unrecognized key.*cahce/);
  });
});
