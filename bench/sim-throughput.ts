/**
 * Simulator throughput: how many `gh pr view`-shaped GraphQL queries (gh 2.23's full
 * PullRequestByNumber document, the costliest read gh sends) one simulator process answers per
 * second with zero injected latency. The simulator runs in a child process (one Node thread:
 * one core); this process drives it over HTTP/1.1 keep-alive with undici. Queries rotate over
 * 100 PRs (--prs 100: #101..#200). Limits are lifted so nothing is refused. Two modes, each a
 * fresh simulator: `executed` turns the answer memo off, so every query is parsed from JSON,
 * looked up, charged and executed by graphql-js over the world; `memoised` is the default
 * simulator (answers kept per world version). Prints each run and the median per mode, both
 * per wall-clock second and per CPU-second of the simulator process (the rate it sustains with
 * a whole core to itself, which a busy shared machine does not give it). The target is
 * ≥ 2,000/s so the simulator is never the bottleneck of a benchmark.
 *
 *   npm run bench:sim                      (5 runs × 3 s per mode, 32 in flight)
 *   npm run bench:sim -- --runs 7 --seconds 5 --concurrency 64 --mode executed
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Pool } from "undici";
import { startSimulator } from "../github-sim/index.js";

const SERVE_FLAG = "--serve-simulator";

/** gh 2.23's `gh pr view N` query, taken from the traffic capture rather than restated. */
function prViewQuery(): string {
  const file = join(import.meta.dirname, "..", "test", "fixtures", "gh-2.23-traffic", "raw", "pr_view.jsonl");
  const row = JSON.parse(readFileSync(file, "utf8").split("\n")[0] ?? "{}") as { body: { query: string } };
  return row.body.query;
}

const PRS = 100;

async function serve(): Promise<void> {
  const sim = await startSimulator({
    prs: PRS,
    cacheResults: !process.argv.includes("--no-memo"),
    limits: { graphql: 1e12, core: 1e12, search: 1e12 },
    secondary: { concurrent: 10_000, graphqlPointsPerMinute: 1e12, restPointsPerMinute: 1e12 },
  });
  process.on("message", () => process.send?.(process.cpuUsage()));
  process.stdout.write(`${sim.port}\n`);
  await once(process, "SIGTERM");
  await sim.close();
  process.exit(0);
}

async function measure(
  pool: Pool,
  bodies: readonly string[],
  seconds: number,
  concurrency: number,
): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  const worker = async (offset: number) => {
    for (let i = offset; performance.now() < deadline; i += concurrency) {
      const res = await pool.request({
        path: "/graphql",
        method: "POST",
        headers: { authorization: "token ghp_simulated", "content-type": "application/json" },
        body: bodies[i % bodies.length] as string,
      });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`simulator answered ${res.statusCode}`);
      done++;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, (_, i) => worker(i)));
  return done / ((performance.now() - start) / 1000);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

interface ModeResult {
  readonly wall: number;
  readonly perCpuSecond: number;
}

function cpuSeconds(child: ReturnType<typeof spawn>): Promise<number> {
  return new Promise((resolve) => {
    child.once("message", (usage: { user: number; system: number }) =>
      resolve((usage.user + usage.system) / 1e6),
    );
    child.send("cpu");
  });
}

async function runMode(
  mode: "executed" | "memoised",
  runs: number,
  seconds: number,
  concurrency: number,
): Promise<ModeResult> {
  const args = [
    ...process.execArgv,
    import.meta.filename,
    SERVE_FLAG,
    ...(mode === "executed" ? ["--no-memo"] : []),
  ];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit", "ipc"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once("exit", (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: concurrency, keepAliveTimeout: 30_000 });
  const query = prViewQuery();
  const bodies = Array.from({ length: PRS }, (_, i) =>
    JSON.stringify({ query, variables: { owner: "acme", repo: "widgets", pr_number: 101 + i } }),
  );
  const probe = await pool.request({
    path: "/graphql",
    method: "POST",
    headers: { authorization: "token ghp_simulated" },
    body: bodies[0] as string,
  });
  const answer = (await probe.body.json()) as {
    data?: { repository?: { pullRequest?: { title?: string } } };
    errors?: unknown;
  };
  if (answer.errors || answer.data?.repository?.pullRequest?.title !== "Generated change 101") {
    throw new Error(`unexpected answer: ${JSON.stringify(answer).slice(0, 300)}`);
  }
  await measure(pool, bodies, 1, concurrency); // warm-up: JIT, caches
  const walls: number[] = [];
  const perCpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const cpuBefore = await cpuSeconds(child);
    const rate = await measure(pool, bodies, seconds, concurrency);
    const cpu = (await cpuSeconds(child)) - cpuBefore;
    walls.push(rate);
    perCpu.push((rate * seconds) / cpu);
    process.stdout.write(
      `${mode} run ${i + 1}: ${Math.round(rate)} queries/s, ${Math.round((rate * seconds) / cpu)} per simulator CPU-second\n`,
    );
  }
  await pool.close();
  child.kill("SIGTERM");
  await once(child, "exit");
  return { wall: median(walls), perCpuSecond: median(perCpu) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "5" },
      seconds: { type: "string", default: "3" },
      concurrency: { type: "string", default: "32" },
      mode: { type: "string", default: "both" },
    },
  });
  const runs = Number(values.runs);
  const seconds = Number(values.seconds);
  const concurrency = Number(values.concurrency);
  const modes =
    values.mode === "both"
      ? (["executed", "memoised"] as const)
      : ([values.mode as "executed" | "memoised"] as const);
  const medians: string[] = [];
  for (const mode of modes) {
    const m = await runMode(mode, runs, seconds, concurrency);
    medians.push(
      `${mode}: median ${Math.round(m.wall)} gh pr view queries/s (${Math.round(m.perCpuSecond)} per simulator CPU-second)`,
    );
  }
  process.stdout.write(
    `${medians.join("\n")}\n(${runs} runs × ${seconds} s per mode, ${concurrency} in flight, zero latency, one simulator process)\n`,
  );
}

if (process.argv.includes(SERVE_FLAG)) await serve();
else await main();
