/**
 * Issue 14, item 2: AO's own GitHub calls skip `~/.ao/bin` (execGhObserved removes it from PATH),
 * so the shim never sees them. `ao-broker run -- <command>` gives the command the gateway's
 * environment for an orchestrator session instead. Here the real CLI runs a driver
 * (test/support/ao-orchestrator-driver.ts) that calls AO's published scm-github plugin 0.2.0
 * unmodified — PR detection, enrichment and review reads — and a model of the current AO's ETag
 * guards, all through real gh. Every request must reach the simulator through the broker, be
 * charged to the orchestrator's session, and the guards' second asks must still see 304s.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import {
  BASE_PATH,
  ROOT,
  type Scratch,
  type ShimBroker,
  scratch,
  startShimBroker,
} from "../../integration/agents-shim/harness.js";
import { runCli } from "../../support/cli-process.js";

interface GuardAnswer {
  status: number;
  etag?: string;
  requestId?: string;
}
interface DriverOutput {
  results: Record<string, unknown>;
  errors: Record<string, string>;
  guards: Record<string, GuardAnswer[]>;
}

let work: Scratch;
let sim: RunningSimulator;
let broker: ShimBroker;
let output: DriverOutput;
let stderr: string;
let simRequests: number;
let sessions: { id: string; stats: { requests: number; upstreamRequests: number } }[];

beforeAll(async () => {
  work = scratch("aob-ao-run-");
  sim = await startSimulator();
  broker = await startShimBroker(join(work.dir, "broker"), { upstream: sim });
  const before = sim.stats().requests.total;
  const home = join(work.dir, "home");
  const result = await runCli(
    [
      "run",
      "--socket",
      broker.socketPath,
      "--repo",
      "acme/widgets",
      "--shim-dir",
      join(home, ".ao", "bin"),
      "--",
      process.execPath,
      "--import",
      "tsx",
      join(ROOT, "test", "support", "ao-orchestrator-driver.ts"),
    ],
    {
      PATH: BASE_PATH,
      HOME: home,
      GH_CONFIG_DIR: join(home, "gh"),
      GH_TOKEN: "",
      GITHUB_TOKEN: "",
      GH_HOST: "",
      GH_NO_UPDATE_NOTIFIER: "1",
      GH_PROMPT_DISABLED: "1",
      AO_BROKER_SOCKET: "",
    },
    120_000,
  );
  stderr = result.stderr;
  expect(result.code, result.stderr).toBe(0);
  output = JSON.parse(result.stdout) as DriverOutput;
  simRequests = sim.stats().requests.total - before;
  const listed = await runCli(["sessions", "--json", "--socket", broker.socketPath]);
  sessions = (JSON.parse(listed.stdout) as { sessions: typeof sessions }).sessions;
}, 180_000);

afterAll(async () => {
  await broker?.close();
  await sim?.close();
  work?.cleanup();
});

describe("ao-broker run -- AO's orchestrator calls", { timeout: 90_000 }, () => {
  it("says which session the command is brokered as", () => {
    expect(stderr).toMatch(
      /^ao-broker run: .*node brokered as session ao-orchestrator \(gateway http:\/\/127\.0\.0\.1:\d+\)$/m,
    );
  });

  it("AO's scm-github 0.2.0 detects the PR and reads it, its CI and its reviews, without an error", () => {
    // One exception, with or without the broker: 0.2.0 asks `gh pr checks --json`, which gh 2.23
    // (Debian's) predates; the plugin's fallback looks for another message and does not apply.
    expect(Object.keys(output.errors)).toEqual(["getCIChecks"]);
    expect(output.errors.getCIChecks).toMatch(
      /^Failed to fetch CI checks: gh pr checks 1 failed: .*unknown flag: --json/s,
    );
    expect(output.results.detectPR).toMatchObject({ number: 1, branch: "feature/frobnicator" });
    expect(output.results.getPRState).toBe("open");
    expect(output.results.getPRSummary).toMatchObject({ title: "Add widget frobnicator" });
    expect(Array.isArray(output.results.getReviews)).toBe(true);
    expect(output.results.getMergeability).toHaveProperty("mergeable");
  });

  it("sent all of it through the broker, charged to the orchestrator session", () => {
    const orchestrator = sessions.find((s) => s.id === "ao-orchestrator");
    expect(orchestrator).toBeDefined();
    // 9 plugin reads + detection + the head lookup + 6 guard asks, each at least one request
    expect(orchestrator?.stats.requests).toBeGreaterThanOrEqual(17);
    expect(simRequests).toBeGreaterThan(0);
    // Every request the simulator saw came through the broker for this session (no other session
    // exists), and nothing was charged anywhere else.
    expect(sessions.map((s) => s.id)).toEqual(["ao-orchestrator"]);
    expect(orchestrator?.stats.upstreamRequests).toBe(simRequests);
  });

  it("the ETag guards modelled on the current AO still see 304s, with a request id", () => {
    for (const [name, [first, second]] of Object.entries(output.guards)) {
      expect(first?.status, name).toBe(200);
      expect(first?.etag, name).toMatch(/^(W\/)?"/);
      expect(second?.status, name).toBe(304);
      expect(second?.requestId, name).toMatch(/\S/);
    }
  });
});
