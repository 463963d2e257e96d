/**
 * `npm run bench:connection-flood`: issue 17's "10,000 idle connections and 1,000 slowloris at fd
 * limit 1024: >= 99 % of agents' requests answered" (decision 0012).
 *
 * The broker runs as deployed by the documented systemd unit's default: `ao-broker start
 * --simulate` under `prlimit --nofile=1024:1024`, on a private redis-server (its own Unix socket).
 * Flood children (this file with --child) hold, each within its own descriptor limit:
 *   - idle:      connections to the gateway that never send a byte (10,000 across 4 children),
 *   - slowloris: connections that trickle request headers one byte at a time (1,000),
 *   - silent:    IPC connections that never say hello (600, more than the IPC bound),
 * and reopen a connection the broker closes (bounded: at most `--reconnects` times the count, and
 * only until the run ends). Meanwhile agents (sessions opened beforehand) do what gh and the shim do:
 * a REST read on a fresh connection, and an IPC connection with hello and a call. The figure is the
 * share of those answered (HTTP 200 / a result) within 10 s. All traffic goes to 127.0.0.1 or the
 * private socket. Usage:
 *   npm run bench:connection-flood [-- --runs 3 --seconds 20 --agents 16 --cli OTHER/dist/cli.js]
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { startEmbeddedRedis } from "../broker/index.js";
import { connectBroker } from "../client/index.js";
import { percentile as nearestRank } from "./core/percentiles.js";

const SELF = import.meta.filename;
const DEFAULT_CLI = join(import.meta.dirname, "..", "dist", "cli.js");
const PATHS = ["/repos/acme/widgets/pulls/1", "/repos/acme/widgets/issues/10", "/repos/acme/widgets"];
const ANSWER_TIMEOUT_MS = 10_000;

/** This process's soft RLIMIT_NOFILE, from /proc (Linux). */
function openFileLimit(): number {
  const line = readFileSync("/proc/self/limits", "utf8")
    .split("\n")
    .find((l) => l.startsWith("Max open files"));
  return Number(line?.split(/\s+/)[3] ?? 1024);
}

/** The scorecard's nearest-rank percentile; NaN for no samples, so a report never reads 0. */
function percentile(sorted: readonly number[], p: number): number {
  return nearestRank(sorted, p) ?? Number.NaN;
}

function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

// ---------------------------------------------------------------------------------------------
// Flood children

interface FloodReport {
  readonly kind: string;
  readonly target: number;
  readonly opened: number;
  readonly closedByBroker: number;
  readonly maxOpen: number;
}

async function floodChild(kind: string, count: number, target: string, seconds: number, reconnects: number) {
  const limit = openFileLimit();
  const wanted = Math.min(count, limit - 64); // the child's own limit, with room for node itself
  const stopAt = Date.now() + seconds * 1000;
  const budget = wanted * reconnects;
  let opened = 0;
  let open = 0;
  let maxOpen = 0;
  let closedByBroker = 0;
  let pending = 0;
  const sockets = new Set<Socket>();
  const header = `GET /repos/acme/widgets HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${"b".repeat(4000)}`;
  const progress = new Map<Socket, number>();

  const openOne = (): void => {
    if (Date.now() >= stopAt || opened >= budget) return;
    opened += 1;
    pending += 1;
    const socket = target.startsWith("/") ? connect(target) : connect(Number(target), "127.0.0.1");
    sockets.add(socket);
    let connected = false;
    socket.on("connect", () => {
      connected = true;
      pending -= 1;
      open += 1;
      maxOpen = Math.max(maxOpen, open);
      if (kind === "slowloris") {
        progress.set(socket, 1);
        socket.write(header.slice(0, 1));
      }
    });
    socket.on("data", () => undefined);
    socket.on("error", () => undefined);
    socket.on("close", () => {
      if (connected) {
        open -= 1;
        closedByBroker += 1;
      } else pending -= 1;
      sockets.delete(socket);
      progress.delete(socket);
      // Reopen, like an attacker would, after a short pause (bounded by budget and time).
      setTimeout(openOne, 50 + Math.random() * 200).unref();
    });
  };

  // Ramp up with at most 256 connects outstanding, so the child's own loop stays responsive.
  let started = 0;
  while (started < wanted && Date.now() < stopAt) {
    if (pending < 256) {
      openOne();
      started += 1;
    } else await sleep(2);
  }
  const trickle =
    kind === "slowloris"
      ? setInterval(() => {
          for (const [socket, at] of progress) {
            if (at >= header.length) continue;
            socket.write(header[at] ?? "b");
            progress.set(socket, at + 1);
          }
        }, 1000)
      : undefined;
  while (Date.now() < stopAt) await sleep(100);
  if (trickle) clearInterval(trickle);
  for (const socket of sockets) socket.destroy();
  const report: FloodReport = { kind, target: wanted, opened, closedByBroker, maxOpen };
  // Connects still waiting on a dropped SYN would keep the process alive for minutes.
  process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(0));
}

// ---------------------------------------------------------------------------------------------
// The run

async function startProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; output: string }> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) resolve();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once("exit", (code) => reject(new Error(`exited (${code}) before ready:\n${output}`)));
  });
  return { child, output };
}

function restCall(port: number, token: string, path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = httpRequest(
      { host: "127.0.0.1", port, path, agent: false, headers: { authorization: `token ${token}` } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode === 200));
        res.on("error", () => resolve(false));
      },
    );
    req.setTimeout(ANSWER_TIMEOUT_MS, () => req.destroy());
    req.on("error", () => resolve(false));
    req.end();
  });
}

async function ipcCall(socketPath: string): Promise<boolean> {
  try {
    const client = await connectBroker({ socketPath, connectTimeoutMs: ANSWER_TIMEOUT_MS });
    try {
      await client.status({ timeoutMs: ANSWER_TIMEOUT_MS });
      return true;
    } finally {
      await client.close();
    }
  } catch {
    return false;
  }
}

/** How many descriptors `pid` holds (Linux /proc); NaN once it is gone. */
function descriptors(pid: number | undefined): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return Number.NaN;
  }
}

interface Tally {
  ok: number;
  failed: number;
  latencies: number[];
}

async function timed(tally: Tally, call: () => Promise<boolean>): Promise<void> {
  const started = performance.now();
  const ok = await call();
  tally.latencies.push(performance.now() - started);
  if (ok) tally.ok += 1;
  else tally.failed += 1;
}

interface RunResult {
  readonly rest: { answered: number; total: number; p50: number; p95: number };
  readonly ipc: { answered: number; total: number; p50: number; p95: number };
  readonly floods: FloodReport[];
  readonly brokerAlive: boolean;
  /** The most descriptors the broker held at once (sampled every 250 ms), of its limit of 1024. */
  readonly brokerMaxDescriptors: number;
}

function summary(t: Tally) {
  const sorted = t.latencies.sort((a, b) => a - b);
  return {
    answered: t.ok / Math.max(1, t.ok + t.failed),
    total: t.ok + t.failed,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
  };
}

async function oneRun(options: {
  cli: string;
  seconds: number;
  agents: number;
  idle: number;
  slowloris: number;
  silent: number;
  reconnects: number;
}): Promise<RunResult> {
  const dir = mkdtempSync(join(tmpdir(), "aob-flood-"));
  const children: ChildProcess[] = [];
  const redis = await startEmbeddedRedis({ dir: join(dir, "redis"), detached: false, persist: false });
  try {
    const socketPath = join(dir, "broker.sock");
    const config = join(dir, "config.json");
    writeFileSync(config, JSON.stringify({ logLevel: "error", lifecycle: { enabled: false } }));
    const broker = await startProcess(
      "prlimit",
      [
        "--nofile=1024:1024",
        "--",
        process.execPath,
        options.cli,
        "start",
        "--simulate",
        "--listen",
        "127.0.0.1:0",
        "--socket",
        socketPath,
        "--config",
        config,
      ],
      { REDIS_URL: redis.url, AO_BROKER_STATE_DIR: join(dir, "state"), HOME: dir, LOG_LEVEL: "error" },
      /open a session/,
    );
    children.push(broker.child);
    const url = /gateway\s+(\S+)/.exec(broker.output)?.[1] ?? "";
    const port = Number(new URL(url).port);

    const tokens: string[] = [];
    const admin = await connectBroker({ socketPath });
    for (let i = 0; i < options.agents; i++)
      tokens.push((await admin.openSession({ id: `flood-agent-${i}`, repo: "acme/widgets" })).token);
    await admin.close();
    for (const token of tokens) await restCall(port, token, PATHS[0] ?? "/"); // fill the cache

    // Flood children, each within its own descriptor limit.
    const floodSeconds = options.seconds + 8;
    const reports: FloodReport[] = [];
    const spawnFlood = (kind: string, count: number, target: string) => {
      const child = spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          SELF,
          "--child",
          kind,
          "--count",
          String(count),
          "--target",
          target,
          "--seconds",
          String(floodSeconds),
          "--reconnects",
          String(options.reconnects),
        ],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      let out = "";
      child.stdout?.on("data", (c: Buffer) => {
        out += c.toString();
      });
      child.once("exit", () => {
        for (const line of out.split("\n")) if (line.trim()) reports.push(JSON.parse(line) as FloodReport);
      });
      children.push(child);
      return new Promise<void>((resolve) => child.once("exit", () => resolve()));
    };
    const idleChildren = Math.max(1, Math.ceil(options.idle / 2500));
    const floods = [
      ...Array.from({ length: idleChildren }, () =>
        spawnFlood("idle", Math.ceil(options.idle / idleChildren), String(port)),
      ),
      spawnFlood("slowloris", options.slowloris, String(port)),
      spawnFlood("silent", options.silent, socketPath),
    ];
    await sleep(6000); // the floods ramp up (tsx start-up, then thousands of connects)

    const rest: Tally = { ok: 0, failed: 0, latencies: [] };
    const ipc: Tally = { ok: 0, failed: 0, latencies: [] };
    const stopAt = Date.now() + options.seconds * 1000;
    let brokerMaxDescriptors = 0;
    const sampler = setInterval(() => {
      const held = descriptors(broker.child.pid);
      if (held > brokerMaxDescriptors) brokerMaxDescriptors = held;
    }, 250);
    await Promise.all(
      tokens.map(async (token, i) => {
        let n = 0;
        while (Date.now() < stopAt && n < 10_000) {
          await timed(rest, () => restCall(port, token, PATHS[(i + n) % PATHS.length] ?? "/"));
          if (n % 4 === 0) await timed(ipc, () => ipcCall(socketPath));
          n += 1;
          await sleep(100);
        }
      }),
    );
    clearInterval(sampler);
    await Promise.all(floods);
    const brokerAlive = broker.child.exitCode === null;
    return { rest: summary(rest), ipc: summary(ipc), floods: reports, brokerAlive, brokerMaxDescriptors };
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const USAGE = `Usage: npm run bench:connection-flood [-- OPTIONS]
       npx tsx bench/connection-flood.ts [OPTIONS]

Floods a broker (ao-broker start --simulate under prlimit --nofile=1024:1024) with idle,
slowloris and silent IPC connections while agents keep asking; reports the share answered.

Options:
  --runs N          runs, the figure is their median (default 3)
  --seconds N       length of each run's flood (default 20)
  --agents N        agents asking during the flood (default 16)
  --idle N          idle gateway connections (default 10000)
  --slowloris N     connections trickling headers a byte at a time (default 1000)
  --silent N        IPC connections that never say hello (default 600)
  --reconnects N    how many times each flood may reopen what the broker closes (default 20)
  --cli FILE        the ao-broker CLI to run (default dist/cli.js; build it first)
  --json FILE       also write the results as JSON
  -h, --help        this text`;

const COUNT_FLAGS = ["runs", "seconds", "agents", "idle", "slowloris", "silent", "reconnects"] as const;

type FloodFlags = Record<(typeof COUNT_FLAGS)[number], string> & {
  readonly child?: string | undefined;
  readonly count?: string | undefined;
  readonly target?: string | undefined;
  readonly cli: string;
  readonly json?: string | undefined;
  readonly help?: boolean | undefined;
};

/** The flags, checked: an unknown flag or a count that is not a whole number is an error with the usage. */
export function parseFloodFlags(argv: readonly string[]): FloodFlags {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        child: { type: "string" },
        count: { type: "string" },
        target: { type: "string" },
        runs: { type: "string", default: "3" },
        seconds: { type: "string", default: "20" },
        agents: { type: "string", default: "16" },
        idle: { type: "string", default: "10000" },
        slowloris: { type: "string", default: "1000" },
        silent: { type: "string", default: "600" },
        reconnects: { type: "string", default: "20" },
        cli: { type: "string", default: DEFAULT_CLI },
        json: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (error) {
    // parseArgs says e.g. "Unknown option '--foo'"; keep its words, drop its code and stack.
    throw new Error((error as Error).message.replace(/\. To specify a positional argument.*$/s, ""));
  }
  for (const flag of COUNT_FLAGS) {
    const value = String(values[flag]);
    const n = Number(value);
    const least = flag === "runs" || flag === "seconds" || flag === "agents" ? 1 : 0;
    if (!/^\d+$/.test(value) || n < least || n > 1_000_000)
      throw new Error(`--${flag}: expected a whole number from ${least} to 1000000, got "${value}"`);
  }
  return values as unknown as FloodFlags;
}

async function main(): Promise<void> {
  let values: FloodFlags;
  try {
    values = parseFloodFlags(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`connection-flood: ${(error as Error).message}\n\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!values.child && !existsSync(values.cli)) {
    process.stderr.write(`connection-flood: --cli ${values.cli}: no such file (run npm run build first)\n`);
    process.exitCode = 2;
    return;
  }
  if (values.child) {
    await floodChild(
      values.child,
      Number(values.count),
      values.target ?? "",
      Number(values.seconds),
      Number(values.reconnects),
    );
    return;
  }
  const results: RunResult[] = [];
  for (let run = 0; run < Number(values.runs); run++) {
    const result = await oneRun({
      cli: values.cli,
      seconds: Number(values.seconds),
      agents: Number(values.agents),
      idle: Number(values.idle),
      slowloris: Number(values.slowloris),
      silent: Number(values.silent),
      reconnects: Number(values.reconnects),
    });
    results.push(result);
    process.stderr.write(
      `run ${run + 1}: REST ${(result.rest.answered * 100).toFixed(2)} % of ${result.rest.total} ` +
        `(p50 ${result.rest.p50.toFixed(1)} ms, p95 ${result.rest.p95.toFixed(1)} ms), IPC ` +
        `${(result.ipc.answered * 100).toFixed(2)} % of ${result.ipc.total} (p95 ${result.ipc.p95.toFixed(1)} ms), ` +
        `broker alive: ${result.brokerAlive}, its descriptors <= ${result.brokerMaxDescriptors}; floods: ${result.floods
          .map(
            (f) =>
              `${f.kind} ${f.target} held≤${f.maxOpen} opened ${f.opened} closed by broker ${f.closedByBroker}`,
          )
          .join("; ")}\n`,
    );
  }
  const report = {
    runs: results.length,
    restAnsweredMedian: median(results.map((r) => r.rest.answered)),
    ipcAnsweredMedian: median(results.map((r) => r.ipc.answered)),
    restP95MedianMs: median(results.map((r) => r.rest.p95)),
    ipcP95MedianMs: median(results.map((r) => r.ipc.p95)),
    results,
  };
  if (values.json) writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(
    `REST answered ${(report.restAnsweredMedian * 100).toFixed(2)} %, IPC answered ${(report.ipcAnsweredMedian * 100).toFixed(2)} % ` +
      `(median of ${results.length} runs; target >= 99 %)\n`,
  );
}

// Run only as a script (tests import parseFloodFlags and USAGE).
if (process.argv[1] && import.meta.filename === process.argv[1]) await main();
