/**
 * `npm run bench:batching`: issue 6's watch-loop workload with real gh 2.23, and issue 16's
 * comment fleet. N sessions each poll their own PR with `gh pr checks N` every `interval` seconds,
 * phases spread at random (not in step), for `seconds`; once straight to the simulator and once
 * through the broker, each arm on a fresh simulator with the same world and the same motion.
 * Reported per arm: upstream GraphQL points and requests (the simulator's own accounting) and their
 * ratio, REST requests, the operations that cost the most, gh wall time per command (p50/p99),
 * rate-limit errors, and for the broker the cache labels of the agents' answers (`/metrics`).
 *
 * - `--via shim` (default): the broker arm's gh is the agents' shim (agents-shim/, installed with
 *   the real installer into a scratch directory, first on PATH), each session opened over IPC as AO
 *   opens it and named by `AO_SESSION_ID`, as an agent runs it. `--via session`: gh with the
 *   session's environment (token and gateway), no shim. Needs `npm run build` (the shim's helper).
 * - `--lifecycle`: the broker's lifecycle also watches each session's PR, as AO has it do.
 * - `--ci-every S`: CI moves: every S seconds each PR gets a push whose CI runs (build 20 s, test
 *   40 s after a 5 s queue), the PRs' pushes spread evenly over S. 0 (default): a still world.
 * - `--comment-every S`: each session also posts `gh pr comment N --body …` every S seconds; the
 *   world is then checked: every acknowledged comment present exactly once.
 * - `--budgets repeat=MS,watch=MS`: batching latency budgets other than the defaults.
 * Usage: npm run bench:batching [-- --sessions 40 --interval 10 --seconds 180 --lifecycle
 *        --ci-every 60 --comment-every 60 --json FILE]
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { installShim } from "../agents-shim/index.js";
import { startBroker, startEmbeddedRedis } from "../broker/index.js";
import { type BudgetResult, connectBroker } from "../client/index.js";
import { silentLogger } from "../common/index.js";
import { type RunningSimulator, type SimStats, startSimulator } from "../github-sim/index.js";

const REPO = "acme/widgets";
const GH = execFileSync("sh", ["-c", "command -v gh"], { encoding: "utf8" }).trim();
const BASE_PATH = process.env.PATH ?? "/usr/bin:/bin";

interface Command {
  readonly kind: "checks" | "comment";
  readonly pr: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | null;
  readonly ms: number;
  readonly body?: string;
}

function gh(
  file: string,
  kind: Command["kind"],
  pr: number,
  args: string[],
  env: Record<string, string>,
  body?: string,
): Promise<Command> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(file, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    // "close", not "exit": exit can come before the last of stdout has been read.
    child.on("close", (code) =>
      resolve({ kind, pr, stdout, stderr, code, ms: performance.now() - started, ...(body ? { body } : {}) }),
    );
  });
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return (
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

interface ArmPlan {
  readonly name: "direct" | "broker";
  readonly sim: RunningSimulator;
  readonly ghFile: string;
  readonly envFor: (pr: number) => Record<string, string>;
  readonly prs: readonly number[];
  readonly intervalMs: number;
  readonly durationMs: number;
  readonly ciEveryMs: number;
  readonly commentEveryMs: number;
}

/** A push whose CI moves: queued 5 s, build done 20 s later, test 40 s later. */
function push(pr: number, round: number) {
  return {
    type: "push" as const,
    repo: REPO,
    branch: `gen/pr-${pr}`,
    message: `change ${round} on ${pr}`,
    ci: {
      jobs: [
        { name: "build", conclusion: "success" as const, startAfterS: 5, durationS: 20 },
        { name: "test", conclusion: "success" as const, startAfterS: 5, durationS: 40 },
      ],
    },
  };
}

async function runArm(plan: ArmPlan): Promise<{ commands: Command[]; pushes: number }> {
  const commands: Command[] = [];
  const start = Date.now();
  const end = start + plan.durationMs;
  let pushes = 0;
  const loops: Promise<void>[] = [];
  plan.prs.forEach((pr, i) => {
    const env = plan.envFor(pr);
    loops.push(
      (async () => {
        await sleep(Math.random() * plan.intervalMs);
        while (Date.now() < end) {
          const next = Date.now() + plan.intervalMs;
          commands.push(await gh(plan.ghFile, "checks", pr, ["pr", "checks", String(pr)], env));
          await sleep(next - Date.now());
        }
      })(),
    );
    if (plan.commentEveryMs > 0) {
      loops.push(
        (async () => {
          await sleep(Math.random() * plan.commentEveryMs);
          for (let k = 0; Date.now() < end; k++) {
            const next = Date.now() + plan.commentEveryMs;
            const body = `fleet ${plan.name} s${pr} #${k}`;
            commands.push(
              await gh(plan.ghFile, "comment", pr, ["pr", "comment", String(pr), "--body", body], env, body),
            );
            await sleep(next - Date.now());
          }
        })(),
      );
    }
    if (plan.ciEveryMs > 0) {
      // The same schedule in both arms: PR i's pushes at (i / N + k) × S after the arm starts.
      loops.push(
        (async () => {
          for (let k = 0; ; k++) {
            const at = start + (i / plan.prs.length + k) * plan.ciEveryMs;
            if (at >= end) return;
            await sleep(at - Date.now());
            plan.sim.inject(push(pr, k));
            pushes++;
          }
        })(),
      );
    }
  });
  await Promise.all(loops);
  return { commands, pushes };
}

const RATE_LIMITED = /rate limit|secondary|retry after|HTTP 429/i;

/** A command failed: gh pr checks exits 8 for pending checks and 1 for failing ones, both answers. */
function failed(c: Command): boolean {
  if (c.kind === "checks") return !(c.code === 0 || c.code === 8 || (c.code === 1 && c.stderr === ""));
  return c.code !== 0;
}

/** Every acknowledged comment in the world exactly once; what landed unacknowledged. */
function judgeComments(sim: RunningSimulator, arm: string, commands: Command[], prs: readonly number[]) {
  const repo = sim.world.repo(REPO);
  const inWorld = new Map<string, number>();
  for (const pr of prs)
    for (const c of repo?.pulls.get(pr)?.comments ?? [])
      if (c.body.startsWith(`fleet ${arm} `)) inWorld.set(c.body, (inWorld.get(c.body) ?? 0) + 1);
  const comments = commands.filter((c) => c.kind === "comment");
  const acknowledged = comments.filter((c) => c.code === 0).map((c) => c.body as string);
  const missing = acknowledged.filter((b) => !inWorld.has(b));
  const duplicated = [...inWorld].filter(([, n]) => n > 1).map(([b]) => b);
  const unacknowledgedLanded = [...inWorld.keys()].filter((b) => !acknowledged.includes(b));
  return {
    attempted: comments.length,
    acknowledged: acknowledged.length,
    inWorld: [...inWorld.values()].reduce((s, n) => s + n, 0),
    missing: missing.length,
    duplicated: duplicated.length,
    unacknowledgedLanded: unacknowledgedLanded.length,
    exactlyOnce: missing.length === 0 && duplicated.length === 0,
  };
}

function topOperations(before: SimStats, after: SimStats, n = 8): Record<string, number> {
  const diff = Object.entries(after.requests.byOperation)
    .map(([op, count]) => [op, count - (before.requests.byOperation[op] ?? 0)] as const)
    .filter(([, d]) => d > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, n);
  return Object.fromEntries(diff);
}

/** GraphQL points per operation between two snapshots, most first. */
function pointsByOperation(before: SimStats, after: SimStats): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after.graphqlPointsByOperation)
      .map(([op, n]) => [op, n - (before.graphqlPointsByOperation[op] ?? 0)] as const)
      .filter(([, d]) => d > 0)
      .sort((a, b) => b[1] - a[1]),
  );
}

function armReport(
  name: string,
  sim: RunningSimulator,
  before: SimStats,
  after: SimStats,
  run: { commands: Command[]; pushes: number },
  prs: readonly number[],
) {
  const ms = (kind?: Command["kind"]) =>
    run.commands.filter((c) => kind === undefined || c.kind === kind).map((c) => c.ms);
  const stat = (values: number[]) => ({
    count: values.length,
    p50: Math.round(percentile(values, 50)),
    p99: Math.round(percentile(values, 99)),
  });
  return {
    commands: run.commands.length,
    pushes: run.pushes,
    failed: run.commands.filter(failed).length,
    rateLimitErrors: run.commands.filter((c) => RATE_LIMITED.test(c.stderr)).length,
    failures: run.commands
      .filter(failed)
      .slice(0, 5)
      .map((c) => `${c.kind} exit ${c.code}: ${c.stderr.trim().slice(0, 300)}`),
    graphqlRequests: after.requests.graphql - before.requests.graphql,
    graphqlPoints: after.graphqlPoints - before.graphqlPoints,
    restRequests: after.requests.rest - before.requests.rest,
    restCharged: after.restCharged - before.restCharged,
    notModified: after.requests.notModified - before.requests.notModified,
    secondaryLimited: after.requests.secondaryLimited - before.requests.secondaryLimited,
    rateLimited: after.requests.rateLimited - before.requests.rateLimited,
    topOperations: topOperations(before, after),
    pointsByOperation: pointsByOperation(before, after),
    gh: { all: stat(ms()), checks: stat(ms("checks")), comment: stat(ms("comment")) },
    comments: judgeComments(sim, name, run.commands, prs),
  };
}

/** `ao_broker_requests_total` by cache result, for agent sessions and for everyone else. */
async function cacheLabels(gatewayUrl: string): Promise<Record<string, Record<string, number>>> {
  const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
  const out: Record<string, Record<string, number>> = { agents: {}, other: {} };
  for (const line of text.split("\n")) {
    if (!line.startsWith("ao_broker_requests_total{")) continue;
    const session = /session="([^"]*)"/.exec(line)?.[1] ?? "";
    const label = /cache_result="([^"]*)"/.exec(line)?.[1] ?? "?";
    const value = Number(line.slice(line.lastIndexOf(" ") + 1));
    const group = /^s\d+$/.test(session) ? "agents" : "other";
    const bucket = out[group] as Record<string, number>;
    bucket[label] = (bucket[label] ?? 0) + value;
  }
  return out;
}

/** `ao_broker_upstream_read_points` for GraphQL, by reason (the broker's own why of every read's points). */
async function readPointsByReason(gatewayUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const line of text.split("\n")) {
    if (!line.startsWith("ao_broker_upstream_read_points") || !line.includes('resource="graphql"')) continue;
    const reason = /reason="([^"]*)"/.exec(line)?.[1] ?? "?";
    const identical = /identical="([^"]*)"/.exec(line)?.[1] === "true" ? " (identical)" : "";
    const key = `${reason}${identical}`;
    out[key] = (out[key] ?? 0) + Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return out;
}

function diffLabels(
  before: Record<string, Record<string, number>>,
  after: Record<string, Record<string, number>>,
): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const [group, labels] of Object.entries(after)) {
    out[group] = Object.fromEntries(
      Object.entries(labels)
        .map(([label, n]) => [label, n - (before[group]?.[label] ?? 0)] as const)
        .filter(([, n]) => n > 0),
    );
  }
  return out;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sessions: { type: "string", default: "50" },
      interval: { type: "string", default: "10" },
      seconds: { type: "string", default: "120" },
      lifecycle: { type: "boolean", default: false },
      "ci-every": { type: "string", default: "0" },
      "comment-every": { type: "string", default: "0" },
      via: { type: "string", default: "shim" },
      budgets: { type: "string" },
      json: { type: "string" },
    },
  });
  const sessions = Number(values.sessions);
  const intervalMs = Number(values.interval) * 1000;
  const durationMs = Number(values.seconds) * 1000;
  const ciEveryMs = Number(values["ci-every"]) * 1000;
  const commentEveryMs = Number(values["comment-every"]) * 1000;
  const via = values.via;
  if (via !== "shim" && via !== "session") throw new Error(`--via: expected shim or session, got ${via}`);
  for (const [flag, v] of Object.entries({ sessions, intervalMs, durationMs, ciEveryMs, commentEveryMs }))
    if (!(Number.isFinite(v) && v >= 0)) throw new Error(`--${flag}: expected a number ≥ 0`);
  const budgets = Object.fromEntries(
    (values.budgets ?? "")
      .split(",")
      .filter(Boolean)
      .map((pair) => {
        const [name, ms] = pair.split("=");
        if (!name || !Number.isInteger(Number(ms)))
          throw new Error(`--budgets: expected class=MS, got ${pair}`);
        return [name, Number(ms)];
      }),
  );
  // The code measured: the commit at the start (and whether the tree had changes).
  const gitCommit = (() => {
    try {
      const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
      const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], {
        encoding: "utf8",
      });
      return dirty.trim() ? `${head}+changes` : head;
    } catch {
      return "unknown";
    }
  })();
  const dir = mkdtempSync(join(tmpdir(), "aob-bench-batch-"));
  const redis = await startEmbeddedRedis({ dir: join(dir, "redis"), detached: false, persist: false });
  const prs = Array.from({ length: sessions }, (_, i) => 101 + i);
  const quiet = (pr: number) => {
    const home = join(dir, `home-${pr}`);
    mkdirSync(join(home, "tmp"), { recursive: true });
    return {
      PATH: BASE_PATH,
      HOME: home,
      TMPDIR: join(home, "tmp"),
      GH_CONFIG_DIR: join(home, "gh"),
      GH_NO_UPDATE_NOTIFIER: "1",
      GH_PROMPT_DISABLED: "1",
      GH_PAGER: "cat",
      LANG: "C.UTF-8",
    };
  };
  const sims: RunningSimulator[] = [];
  const newSim = async () => {
    const sim = await startSimulator({ port: 0, prs: sessions });
    sims.push(sim);
    return sim;
  };
  const what = `${sessions} sessions, gh pr checks every ${values.interval}s${commentEveryMs > 0 ? `, gh pr comment every ${values["comment-every"]}s` : ""}${ciEveryMs > 0 ? `, CI moving (a push per PR every ${values["ci-every"]}s)` : ", still world"}, ${values.seconds}s per arm`;
  try {
    process.stderr.write(`direct arm: ${what}\n`);
    const directSim = await newSim();
    const directBefore = directSim.stats();
    const direct = await runArm({
      name: "direct",
      sim: directSim,
      ghFile: GH,
      envFor: (pr) => ({
        ...quiet(pr),
        GH_HOST: "github.localhost",
        GH_TOKEN: directSim.token,
        GH_REPO: `github.localhost/${REPO}`,
        HTTP_PROXY: directSim.url,
        NO_PROXY: "",
        no_proxy: "",
      }),
      prs,
      intervalMs,
      durationMs,
      ciEveryMs,
      commentEveryMs,
    });
    const directAfter = directSim.stats();

    const brokerSim = await newSim();
    const broker = await startBroker({
      logger: silentLogger(),
      probeLocalRedis: false,
      env: { GITHUB_TOKEN: brokerSim.token },
      overrides: {
        listen: "127.0.0.1:0",
        socket: join(dir, "broker.sock"),
        stateDir: join(dir, "state"),
        upstream: { url: brokerSim.url, forwardClientHost: true },
        redis: { url: redis.url, prefix: "bench" },
        ...(Object.keys(budgets).length > 0 ? { batching: { latencyBudgetMs: budgets } } : {}),
        lifecycle: { enabled: values.lifecycle },
      },
    });
    let brokerReport: ReturnType<typeof armReport>;
    let labels: Record<string, Record<string, number>>;
    let readPoints: Record<string, number> = {};
    let budget: BudgetResult;
    let runBroker: { commands: Command[]; pushes: number };
    try {
      const client = await connectBroker({ socketPath: broker.socketPath });
      // Sessions opened over IPC as AO opens them; the agents then name theirs by AO_SESSION_ID.
      const envs = new Map<number, Record<string, string>>();
      for (const pr of prs)
        envs.set(pr, (await client.openSession({ id: `s${pr}`, repo: REPO })).env as Record<string, string>);
      if (values.lifecycle) {
        for (const pr of prs)
          await client.watch({ sessionId: `s${pr}`, repo: REPO, branch: `gen/pr-${pr}`, pr });
        // Let the first cycle read every PR and the guards take their baselines, as in steady state.
        await sleep(25_000);
      }
      const bin = join(dir, "bin");
      const shim = via === "shim" ? installShim({ dir: bin, env: { PATH: BASE_PATH } }).shimPath : GH;
      const envFor = (pr: number) =>
        via === "shim"
          ? {
              ...quiet(pr),
              PATH: `${bin}:${BASE_PATH}`,
              AO_BROKER_SOCKET: broker.socketPath,
              AO_BROKER_SHIM_STATE: join(dir, "shim-state"),
              AO_BROKER_GH: GH,
              AO_SESSION_ID: `s${pr}`,
              GH_REPO: REPO,
            }
          : { ...quiet(pr), ...(envs.get(pr) ?? {}) };
      process.stderr.write(
        `broker arm (${via === "shim" ? "gh through the agents' shim" : "session env"})\n`,
      );
      const labelsBefore = await cacheLabels(broker.gatewayUrl);
      const reasonsBefore = await readPointsByReason(broker.gatewayUrl);
      const brokerBefore = brokerSim.stats();
      runBroker = await runArm({
        name: "broker",
        sim: brokerSim,
        ghFile: shim,
        envFor,
        prs,
        intervalMs,
        durationMs,
        ciEveryMs,
        commentEveryMs,
      });
      const brokerAfter = brokerSim.stats();
      labels = diffLabels(labelsBefore, await cacheLabels(broker.gatewayUrl));
      const reasonsAfter = await readPointsByReason(broker.gatewayUrl);
      readPoints = Object.fromEntries(
        Object.entries(reasonsAfter)
          .map(([k, v]) => [k, Math.round((v - (reasonsBefore[k] ?? 0)) * 1000) / 1000] as const)
          .filter(([, v]) => v > 0),
      );
      budget = await client.budget();
      await client.close();
      brokerReport = armReport("broker", brokerSim, brokerBefore, brokerAfter, runBroker, prs);
    } finally {
      await broker.close();
    }
    const directReport = armReport("direct", directSim, directBefore, directAfter, direct, prs);

    // In a still world every broker answer must equal the direct one for the same PR.
    let compared = 0;
    let different = 0;
    const differences: { pr: number; expected: string; got: string }[] = [];
    if (ciEveryMs === 0 && commentEveryMs === 0) {
      for (const c of runBroker.commands) {
        const reference = direct.commands.find((d) => d.kind === "checks" && d.pr === c.pr)?.stdout ?? "";
        compared++;
        if (c.stdout === reference) continue;
        different++;
        if (differences.length < 5) differences.push({ pr: c.pr, expected: reference, got: c.stdout });
      }
    }

    const ratio = directReport.graphqlPoints / Math.max(1, brokerReport.graphqlPoints);
    const result = {
      command: `npm run bench:batching -- --sessions ${sessions} --interval ${values.interval} --seconds ${values.seconds}${values.lifecycle ? " --lifecycle" : ""}${ciEveryMs > 0 ? ` --ci-every ${values["ci-every"]}` : ""}${commentEveryMs > 0 ? ` --comment-every ${values["comment-every"]}` : ""} --via ${via}${values.budgets ? ` --budgets ${values.budgets}` : ""}`,
      commit: gitCommit,
      load: execFileSync("uptime", { encoding: "utf8" }).trim(),
      sessions,
      intervalSeconds: Number(values.interval),
      seconds: Number(values.seconds),
      ciEverySeconds: ciEveryMs / 1000,
      commentEverySeconds: commentEveryMs / 1000,
      via,
      direct: directReport,
      broker: {
        ...brokerReport,
        cacheLabels: labels,
        readPointsByReason: readPoints,
        secondary: budget.secondary,
      },
      answersCompared: compared,
      answersDifferent: different,
      differences,
      pointsRatio: ratio,
      medianAddedMs: brokerReport.gh.all.p50 - directReport.gh.all.p50,
    };
    const line = (name: string, r: typeof directReport) =>
      `  ${name.padEnd(7)} ${r.commands} gh commands (${r.failed} failed, ${r.rateLimitErrors} rate-limit errors), ${r.graphqlRequests} GraphQL requests, ${r.graphqlPoints} points, ${r.restRequests} REST (${r.notModified} 304), gh p50 ${r.gh.all.p50} ms p99 ${r.gh.all.p99} ms (checks ${r.gh.checks.p50}/${r.gh.checks.p99}, comment ${r.gh.comment.p50}/${r.gh.comment.p99})${commentEveryMs > 0 ? `; comments ${r.comments.acknowledged} acknowledged, ${r.comments.inWorld} in the world, exactly once: ${r.comments.exactlyOnce}` : ""}`;
    process.stdout.write(
      `${[
        `${what}:`,
        line("direct", directReport),
        line("broker", brokerReport),
        `  GraphQL points saved: ${ratio.toFixed(1)}x; broker − direct at the median: ${result.medianAddedMs} ms${compared > 0 ? `; answers identical to direct: ${compared - different}/${compared}` : ""}`,
        `  broker cache labels (agents): ${JSON.stringify(labels.agents)}; others (lifecycle): ${JSON.stringify(labels.other)}`,
        `  top upstream operations, direct: ${JSON.stringify(directReport.topOperations)}`,
        `  top upstream operations, broker: ${JSON.stringify(brokerReport.topOperations)}`,
        `  GraphQL points by operation, direct: ${JSON.stringify(directReport.pointsByOperation)}`,
        `  GraphQL points by operation, broker: ${JSON.stringify(brokerReport.pointsByOperation)}`,
        `  broker read points by reason (GraphQL, the broker's metrics): ${JSON.stringify(readPoints)}`,
        ...(budget.secondary
          ? [
              `  content creation this hour ${budget.secondary.contentCreation.hour.used} (paced to ${budget.secondary.contentCreation.hour.limit}, GitHub ${budget.secondary.contentCreation.hour.githubLimit})`,
            ]
          : []),
      ].join("\n")}\n`,
    );
    if (values.json) writeFileSync(values.json, JSON.stringify(result, null, 2));
  } finally {
    for (const sim of sims) await sim.close();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
