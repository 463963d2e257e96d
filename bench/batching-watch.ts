/**
 * `npm run bench:batching`: issue 6's watch-loop workload with real gh 2.23. N sessions each poll
 * their own PR with `gh pr checks N` every `interval` seconds, phases spread at random (not in
 * step), for `seconds`; once straight to the simulator and once through the broker (default
 * configuration), on the same still world. Reported: upstream GraphQL points and requests per arm
 * (the simulator's own accounting), their ratio, gh wall time per poll (p50/p99), and whether every
 * answer through the broker equals the direct answer for the same PR.
 * `--lifecycle`: the broker's lifecycle also watches each session's PR, as AO has it do (its free
 * guards then vouch for the PRs, and agents' polls of an unchanged PR are served from the cache).
 * `--budgets repeat=MS,watch=MS`: batching latency budgets other than the defaults.
 * Usage: npm run bench:batching [-- --sessions 50 --interval 10 --seconds 120 --lifecycle
 *        --budgets repeat=1500 --json FILE]
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startBroker, startEmbeddedRedis } from "../broker/index.js";
import { connectBroker } from "../client/index.js";
import { silentLogger } from "../common/index.js";
import { startSimulator } from "../github-sim/index.js";

interface Poll {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | null;
  readonly ms: number;
}

function gh(args: string[], env: Record<string, string>): Promise<Poll> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn("gh", args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    // "close", not "exit": exit can come before the last of stdout has been read.
    child.on("close", (code) => resolve({ stdout, stderr, code, ms: performance.now() - started }));
  });
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return (
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN
  );
}

async function runArm(
  envFor: (pr: number) => Record<string, string>,
  prs: number[],
  intervalMs: number,
  durationMs: number,
): Promise<Map<number, Poll[]>> {
  const polls = new Map<number, Poll[]>();
  const end = Date.now() + durationMs;
  await Promise.all(
    prs.map(async (pr) => {
      const list: Poll[] = [];
      polls.set(pr, list);
      await new Promise((r) => setTimeout(r, Math.random() * intervalMs));
      while (Date.now() < end) {
        const next = Date.now() + intervalMs;
        list.push(await gh(["pr", "checks", String(pr)], envFor(pr)));
        await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
      }
    }),
  );
  return polls;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sessions: { type: "string", default: "50" },
      interval: { type: "string", default: "10" },
      seconds: { type: "string", default: "120" },
      lifecycle: { type: "boolean", default: false },
      budgets: { type: "string" },
      json: { type: "string" },
    },
  });
  const sessions = Number(values.sessions);
  const intervalMs = Number(values.interval) * 1000;
  const durationMs = Number(values.seconds) * 1000;
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
  const dir = mkdtempSync(join(tmpdir(), "aob-bench-batch-"));
  const redis = await startEmbeddedRedis({ dir: join(dir, "redis"), detached: false, persist: false });
  const sim = await startSimulator({ port: 0, prs: sessions });
  const prs = Array.from({ length: sessions }, (_, i) => 101 + i);
  try {
    const ghEnv = (pr: number) => ({
      GH_CONFIG_DIR: join(dir, `gh-${pr}`),
      GH_NO_UPDATE_NOTIFIER: "1",
      GH_PROMPT_DISABLED: "1",
    });
    process.stderr.write(
      `direct arm: ${sessions} sessions, gh pr checks every ${values.interval}s for ${values.seconds}s\n`,
    );
    const before = sim.stats();
    const direct = await runArm(
      (pr) => ({
        ...ghEnv(pr),
        GH_HOST: "github.localhost",
        GH_TOKEN: sim.token,
        GH_REPO: "github.localhost/acme/widgets",
        HTTP_PROXY: sim.url,
        NO_PROXY: "",
      }),
      prs,
      intervalMs,
      durationMs,
    );
    const mid = sim.stats();

    const broker = await startBroker({
      logger: silentLogger(),
      probeLocalRedis: false,
      env: { GITHUB_TOKEN: sim.token },
      overrides: {
        listen: "127.0.0.1:0",
        socket: join(dir, "broker.sock"),
        stateDir: join(dir, "state"),
        upstream: { url: sim.url, forwardClientHost: true },
        redis: { url: redis.url, prefix: "bench" },
        ...(Object.keys(budgets).length > 0 ? { batching: { latencyBudgetMs: budgets } } : {}),
        lifecycle: { enabled: values.lifecycle },
      },
    });
    const client = await connectBroker({ socketPath: broker.socketPath });
    const envs = new Map<number, Record<string, string>>();
    for (const pr of prs)
      envs.set(
        pr,
        (await client.openSession({ id: `s${pr}`, repo: "acme/widgets" })).env as Record<string, string>,
      );
    if (values.lifecycle) {
      for (const pr of prs)
        await client.watch({ sessionId: `s${pr}`, repo: "acme/widgets", branch: `gen/pr-${pr}`, pr });
      // Let the first cycle read every PR and the guards take their baselines, as in steady state.
      await new Promise((r) => setTimeout(r, 25_000));
    }
    await client.close();
    process.stderr.write("broker arm\n");
    const viaBroker = await runArm(
      (pr) => ({ ...ghEnv(pr), ...(envs.get(pr) ?? {}) }),
      prs,
      intervalMs,
      durationMs,
    );
    const after = sim.stats();
    await broker.close();

    let compared = 0;
    let different = 0;
    const differences: { pr: number; expected: string; got: Poll }[] = [];
    for (const pr of prs) {
      const reference = direct.get(pr)?.[0]?.stdout ?? "";
      for (const poll of viaBroker.get(pr) ?? []) {
        compared++;
        if (poll.stdout === reference) continue;
        different++;
        if (differences.length < 5) differences.push({ pr, expected: reference, got: poll });
      }
    }
    const directMs = [...direct.values()].flat().map((p) => p.ms);
    const brokerMs = [...viaBroker.values()].flat().map((p) => p.ms);
    const result = {
      command: `npm run bench:batching -- --sessions ${sessions} --interval ${values.interval} --seconds ${values.seconds}${values.lifecycle ? " --lifecycle" : ""}${values.budgets ? ` --budgets ${values.budgets}` : ""}`,
      sessions,
      intervalSeconds: Number(values.interval),
      seconds: Number(values.seconds),
      direct: {
        polls: directMs.length,
        graphqlRequests: mid.requests.graphql - before.requests.graphql,
        graphqlPoints: mid.graphqlPoints - before.graphqlPoints,
        ghMsP50: percentile(directMs, 50),
        ghMsP99: percentile(directMs, 99),
      },
      broker: {
        polls: brokerMs.length,
        graphqlRequests: after.requests.graphql - mid.requests.graphql,
        graphqlPoints: after.graphqlPoints - mid.graphqlPoints,
        ghMsP50: percentile(brokerMs, 50),
        ghMsP99: percentile(brokerMs, 99),
      },
      answersCompared: compared,
      answersDifferent: different,
      differences,
    };
    const ratio = result.direct.graphqlPoints / Math.max(1, result.broker.graphqlPoints);
    process.stdout.write(
      `${[
        `gh pr checks every ${values.interval}s, ${sessions} sessions, ${values.seconds}s per arm:`,
        `  direct   ${result.direct.polls} polls, ${result.direct.graphqlRequests} GraphQL requests, ${result.direct.graphqlPoints} points, gh p50 ${Math.round(result.direct.ghMsP50)} ms p99 ${Math.round(result.direct.ghMsP99)} ms`,
        `  broker   ${result.broker.polls} polls, ${result.broker.graphqlRequests} GraphQL requests, ${result.broker.graphqlPoints} points, gh p50 ${Math.round(result.broker.ghMsP50)} ms p99 ${Math.round(result.broker.ghMsP99)} ms`,
        `  points saved: ${ratio.toFixed(1)}x; answers identical to direct: ${compared - different}/${compared}`,
      ].join("\n")}\n`,
    );
    if (values.json) writeFileSync(values.json, JSON.stringify({ ...result, pointsRatio: ratio }, null, 2));
  } finally {
    await sim.close();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
