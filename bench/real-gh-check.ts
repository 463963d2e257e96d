/**
 * `--real-gh`: does the replay cost what real gh costs? Each command an agent runs is executed
 * twice on identical fresh worlds — once by the real gh binary, once by the replay — and the
 * simulator's own accounting (GraphQL points, REST requests, operations) is compared; directly
 * against the simulator and through a broker (real gh with the environment `session.open` returns,
 * the replay through the gateway). The goal: replay within 5 % of real gh over the command set.
 * gh runs asynchronously (the simulator shares this process), with a throw-away HOME and config.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startBroker, startEmbeddedRedis } from "../broker/index.js";
import { connectBroker } from "../client/index.js";
import { AoError, silentLogger } from "../common/index.js";
import { type RunningSimulator, type SimStats, startSimulator } from "../github-sim/index.js";
import { sendAgentRequest } from "./agent-requests.js";
import type { Bindings } from "./core/capture-template.js";
import type { RealGhCommandCheck, RealGhReport } from "./core/report-types.js";
import type { CostEstimator } from "./cost-estimator.js";
import { BenchErrors } from "./errors.js";
import type { HttpTransport } from "./http-transport.js";
import * as gh from "./replay/gh-commands.js";
import type { CommandOutcome, ReplayContext } from "./replay/replay-types.js";
import { StepRecorder } from "./step-recorder.js";
import { BENCH_WORKFLOW_ID, benchScenario } from "./world-driver.js";

const run = promisify(execFile);

interface Ids {
  readonly pr: number;
  readonly issue: number;
  readonly runId: number;
  readonly branch: string;
}

interface CheckedCommand {
  readonly name: string;
  readonly argv: (ids: Ids) => string[];
  readonly replay: (ctx: ReplayContext, ids: Ids) => Promise<CommandOutcome<unknown>>;
}

const runRef = (ids: Ids) => ({
  runId: ids.runId,
  workflowId: BENCH_WORKFLOW_ID,
  status: "completed",
  conclusion: "failure",
});

export const CHECKED_COMMANDS: readonly CheckedCommand[] = [
  {
    name: "issue view",
    argv: (i) => ["issue", "view", String(i.issue)],
    replay: (c) => gh.issueView(c, false),
  },
  {
    name: "issue view --comments",
    argv: (i) => ["issue", "view", String(i.issue), "--comments"],
    replay: (c) => gh.issueView(c, true),
  },
  { name: "pr view", argv: (i) => ["pr", "view", String(i.pr)], replay: (c) => gh.prView(c, "pr_view") },
  {
    name: "pr view --comments",
    argv: (i) => ["pr", "view", String(i.pr), "--comments"],
    replay: (c) => gh.prView(c, "pr_view_comments"),
  },
  {
    name: "pr view --json statusCheckRollup",
    argv: (i) => ["pr", "view", String(i.pr), "--json", "statusCheckRollup"],
    replay: (c) => gh.prView(c, "pr_view_json_checks"),
  },
  {
    name: "pr view --json reviews,...",
    argv: (i) => [
      "pr",
      "view",
      String(i.pr),
      "--json",
      "reviews,comments,reviewDecision,mergeable,mergeStateStatus",
    ],
    replay: (c) => gh.prView(c, "pr_view_json_reviews"),
  },
  { name: "pr checks", argv: (i) => ["pr", "checks", String(i.pr)], replay: (c) => gh.prChecks(c) },
  {
    name: "pr checks --watch",
    argv: (i) => ["pr", "checks", String(i.pr), "--watch"],
    replay: (c) => gh.prChecksWatch(c, 60_000),
  },
  { name: "pr list", argv: () => ["pr", "list"], replay: (c) => gh.prList(c) },
  { name: "pr diff", argv: (i) => ["pr", "diff", String(i.pr)], replay: (c) => gh.prDiff(c) },
  {
    name: "run list --branch",
    argv: (i) => [
      "run",
      "list",
      "--branch",
      i.branch,
      "--json",
      "databaseId,status,conclusion,headBranch,workflowName",
    ],
    replay: (c) => gh.runListBranch(c),
  },
  {
    name: "run watch",
    argv: (i) => ["run", "watch", String(i.runId)],
    replay: (c, i) => gh.runWatch(c, runRef(i), 60_000),
  },
  {
    name: "run view --log-failed",
    argv: (i) => ["run", "view", String(i.runId), "--log-failed"],
    replay: (c, i) => gh.runViewLogFailed(c, runRef(i)),
  },
  {
    name: "api pulls/N/comments",
    argv: (i) => ["api", `repos/acme/widgets/pulls/${i.pr}/comments`],
    replay: (c) => gh.apiPullComments(c),
  },
  {
    name: "pr comment",
    argv: (i) => ["pr", "comment", String(i.pr), "--body", "Fixed."],
    replay: (c) => gh.prComment(c, "Fixed."),
  },
  {
    name: "pr merge --squash --delete-branch",
    argv: (i) => ["pr", "merge", String(i.pr), "--squash", "--delete-branch"],
    replay: (c) => gh.prMerge(c),
  },
];

interface Cost {
  readonly points: number;
  readonly rest: number;
  readonly operations: string[];
}

function cost(before: SimStats, after: SimStats): Cost {
  const operations: string[] = [];
  for (const [op, n] of Object.entries(after.requests.byOperation)) {
    for (let i = 0; i < n - (before.requests.byOperation[op] ?? 0); i++) operations.push(op);
  }
  return {
    points: after.graphqlPoints - before.graphqlPoints,
    rest: after.restCharged - before.restCharged,
    operations: operations.sort(),
  };
}

/** A world with one PR whose CI finished (one job failed), its run, and an issue. */
async function freshWorld(): Promise<{ sim: RunningSimulator; ids: Ids }> {
  const sim = await startSimulator({ port: 0, scenario: benchScenario(3) });
  const branch = "ao/real-gh";
  const opened = sim.inject({
    type: "open_pr",
    title: "Fix #1",
    body: "Closes #1.",
    head: branch,
    ci: {
      workflowId: BENCH_WORKFLOW_ID,
      jobs: [
        { name: "build", conclusion: "success" },
        { name: "test", conclusion: "failure" },
      ],
    },
  });
  const runId =
    [...(sim.world.repo("acme/widgets")?.runs.values() ?? [])].find((r) => r.headBranch === branch)?.id ?? 0;
  return { sim, ids: { pr: opened.number ?? 0, issue: 1, runId, branch } };
}

async function realGh(argv: readonly string[], env: Readonly<Record<string, string>>): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), "aob-realgh-"));
  try {
    await run("gh", [...argv], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        GH_CONFIG_DIR: join(home, "config"),
        TMPDIR: home,
        GH_NO_UPDATE_NOTIFIER: "1",
        GH_PROMPT_DISABLED: "1",
        NO_COLOR: "1",
        ...env,
      },
      timeout: 60_000,
    }).catch((error: { code?: unknown }) => {
      // gh exits 1 for failing checks and similar: the requests were still sent.
      if (typeof error.code !== "number") throw error;
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

function replayContext(send: ReplayContext["send"], ids: Ids): ReplayContext {
  const bindings: Bindings = {
    owner: "acme",
    repo: "widgets",
    issue: ids.issue,
    pr: ids.pr,
    branch: ids.branch,
    base: "main",
  };
  return {
    bindings,
    send,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    ghCache: { introspected: false },
  };
}

export interface RealGhCheckOptions {
  readonly transport: HttpTransport;
  readonly costs: CostEstimator;
  readonly commands?: readonly CheckedCommand[];
}

export async function runRealGhCheck(options: RealGhCheckOptions): Promise<RealGhReport> {
  let version: string;
  try {
    version = (await run("gh", ["--version"])).stdout.split("\n")[0]?.trim() ?? "gh";
  } catch (error) {
    throw new AoError(
      BenchErrors.AO_ERR_BENCH_GH_UNAVAILABLE,
      "--real-gh needs the gh binary on PATH (gh 2.23)",
      { cause: error },
    );
  }
  const dir = mkdtempSync(join(tmpdir(), "aob-realgh-redis-"));
  const redis = await startEmbeddedRedis({ dir, persist: false, detached: false });
  const checks: RealGhCommandCheck[] = [];
  const recorder = new StepRecorder({
    scale: 1,
    simLatencyRealMs: 0,
    truth: undefined,
    costs: options.costs,
  });
  let counter = 0;
  try {
    for (const command of options.commands ?? CHECKED_COMMANDS) {
      for (const path of ["direct", "broker"] as const) {
        const measured: Cost[] = [];
        for (const who of ["real", "replay"] as const) {
          const { sim, ids } = await freshWorld();
          const stateDir = mkdtempSync(join(dir, "broker-"));
          const broker =
            path === "broker"
              ? await startBroker({
                  overrides: {
                    listen: "127.0.0.1:0",
                    socket: join(stateDir, "b.sock"),
                    stateDir,
                    upstream: { url: sim.url },
                    redis: { url: redis.url, prefix: `rg${counter++}` },
                    logLevel: "silent",
                  },
                  env: { GITHUB_TOKEN: sim.token },
                  probeLocalRedis: false,
                  logger: silentLogger(),
                })
              : undefined;
          try {
            const client = broker ? await connectBroker({ socketPath: broker.socketPath }) : undefined;
            const session = client
              ? await client.openSession({ id: "real-gh", repo: "acme/widgets" })
              : undefined;
            const before = sim.stats();
            if (who === "real") {
              const env = session
                ? { ...session.env }
                : {
                    GH_HOST: "github.localhost",
                    GH_TOKEN: sim.token,
                    GH_REPO: "github.localhost/acme/widgets",
                    HTTP_PROXY: sim.url,
                    http_proxy: sim.url,
                    NO_PROXY: "",
                    no_proxy: "",
                  };
              await realGh(command.argv(ids), env);
            } else {
              const base = broker?.gatewayUrl ?? sim.url;
              const token = session?.token ?? sim.token;
              const path = { transport: options.transport, baseUrl: base, recorder, now: () => sim.now() };
              await command.replay(
                replayContext((request) => sendAgentRequest(path, request, token), ids),
                ids,
              );
            }
            measured.push(cost(before, sim.stats()));
            await client?.close();
          } finally {
            await broker?.close();
            await sim.close();
            rmSync(stateDir, { recursive: true, force: true });
          }
        }
        const [real, replay] = measured as [Cost, Cost];
        checks.push({
          command: command.name,
          path,
          realGraphqlPoints: real.points,
          realRestCore: real.rest,
          replayGraphqlPoints: replay.points,
          replayRestCore: replay.rest,
          realOperations: real.operations,
          replayOperations: replay.operations,
        });
      }
    }
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const realCost = checks.reduce((sum, c) => sum + c.realGraphqlPoints + c.realRestCore, 0);
  const replayCost = checks.reduce((sum, c) => sum + c.replayGraphqlPoints + c.replayRestCore, 0);
  const deviation = realCost === 0 ? 0 : Math.abs(replayCost - realCost) / realCost;
  return {
    ghVersion: version,
    commands: checks,
    realCost,
    replayCost,
    deviation,
    withinGoal: deviation <= 0.05,
  };
}
