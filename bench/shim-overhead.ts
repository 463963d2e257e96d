/**
 * `npm run bench:shim`: what the agents shim adds to a gh command (issue 4's goal: median added
 * wall time of `gh pr view 1` ≤ 20 ms). Three processes, as deployed: the simulator (`ao-broker
 * sim`), the broker (`ao-broker start`, a private redis-server), and real gh 2.23 started from here.
 * Arms, interleaved in random order in every round of one run, on the same world:
 *   direct   gh straight to the simulator (docs/architecture.md, "How real gh is routed")
 *   broker   gh with a session's environment, straight to the gateway (no shim)
 *   shim     `gh` resolved to the installed shim, as an agent runs it (AO_SESSION_ID only)
 * plus the same pair inside a git checkout (no GH_REPO: gh asks git for the remote) and a shim's
 * first use (registration through the Node helper). `--forms` also times the shim's own cost with a
 * do-nothing gh for the candidate forms (this sh script under dash and bash, and the same hot path
 * as a Node script) — the measurement behind docs/decisions/0003-shim-form.md.
 * Usage: npm run bench:shim [-- --rounds 60 --forms --json FILE]
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { installShim } from "../agents-shim/index.js";
import { startEmbeddedRedis } from "../broker/index.js";
import { connectBroker } from "../client/index.js";

const CLI = join(import.meta.dirname, "..", "dist", "cli.js");
const GH = execFileSync("sh", ["-c", "command -v gh"], { encoding: "utf8" }).trim();
const BASE_PATH = process.env.PATH ?? "/usr/bin:/bin";

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (pos - lo);
}

const median = (values: readonly number[]) => quantile(values, 0.5);
const round = (n: number) => Math.round(n * 10) / 10;

async function startProcess(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; output: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) resolve();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once("exit", (code) => reject(new Error(`process exited (${code}) before ready:\n${output}`)));
  });
  return { child, output };
}

/** Wall time from spawn to exit, ms; fails loudly if the command does. */
function timed(
  file: string,
  args: readonly string[],
  env: Record<string, string>,
  cwd?: string,
  expectCode = 0,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(file, [...args], { env, cwd, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    child.on("exit", (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== expectCode) reject(new Error(`${file} ${args.join(" ")} exited ${code}: ${err}`));
      else resolve(ms);
    });
  });
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

interface Arm {
  readonly name: string;
  readonly run: () => Promise<number>;
}

async function rounds(arms: readonly Arm[], count: number, gapMs = 40): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = Object.fromEntries(arms.map((a) => [a.name, []]));
  for (let r = 0; r < count; r++) {
    for (const arm of shuffle([...arms])) {
      await new Promise((resolve) => setTimeout(resolve, gapMs));
      out[arm.name]?.push(await arm.run());
    }
  }
  return out;
}

function summary(
  samples: Record<string, number[]>,
): Record<string, { median: number; p25: number; p75: number; n: number }> {
  return Object.fromEntries(
    Object.entries(samples).map(([name, xs]) => [
      name,
      {
        median: round(median(xs)),
        p25: round(quantile(xs, 0.25)),
        p75: round(quantile(xs, 0.75)),
        n: xs.length,
      },
    ]),
  );
}

function checkoutDir(base: string): string {
  const dir = join(base, "checkout");
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: dir,
      env: {
        PATH: BASE_PATH,
        HOME: dir,
        GIT_AUTHOR_NAME: "b",
        GIT_AUTHOR_EMAIL: "b@b",
        GIT_COMMITTER_NAME: "b",
        GIT_COMMITTER_EMAIL: "b@b",
      },
      stdio: "pipe",
    });
  git("init", "-q", "-b", "main");
  git("commit", "-q", "--allow-empty", "-m", "init");
  git("remote", "add", "origin", "https://github.com/acme/widgets.git");
  git("checkout", "-q", "-b", "feature/frobnicator");
  return dir;
}

const NODE_SHIM = `#!/usr/bin/env node
// The shell shim's hot path as a Node program, for comparison only (bench:shim --forms).
import { readFileSync, appendFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
const env = { ...process.env };
const state = env.AO_BROKER_SHIM_STATE;
const cache = Object.fromEntries(readFileSync(state + "/sessions/ao-" + env.AO_SESSION_ID, "utf8").trim().split("\\n").map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
const argv = process.argv.slice(2);
const suffix = Buffer.from(JSON.stringify({ i: randomUUID(), a: argv, c: process.cwd() })).toString("base64url");
Object.assign(env, { GH_HOST: "github.localhost", GH_TOKEN: cache.token + "." + suffix, HTTP_PROXY: cache.gateway, NO_PROXY: "", no_proxy: "" });
delete env.GITHUB_TOKEN;
const t0 = Date.now();
const child = spawn(env.AO_BROKER_GH, argv, { env, stdio: "inherit" });
for (const s of ["SIGTERM", "SIGHUP"]) process.on(s, () => child.kill(s));
process.on("SIGINT", () => {});
child.on("exit", (code) => {
  appendFileSync(state + "/spool-node", (code ?? 1) + " " + (Date.now() - t0) + " - " + cache.gateway + " " + env.GH_TOKEN + "\\n");
  process.exit(code ?? 1);
});
`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: "string", default: "60" },
      forms: { type: "boolean", default: false },
      json: { type: "string" },
    },
  });
  const count = Math.max(5, Number(values.rounds) || 60);
  const dir = mkdtempSync(join(tmpdir(), "aob-bench-shim-"));
  const children: ChildProcess[] = [];
  const redis = await startEmbeddedRedis({ dir: join(dir, "redis"), detached: false, persist: false });
  try {
    const sim = await startProcess(["sim", "--port", "0"], {}, /listening on (http:\/\/\S+)/);
    children.push(sim.child);
    const simUrl = /listening on (http:\/\/\S+)/.exec(sim.output)?.[1] ?? "";
    const socket = join(dir, "broker.sock");
    const broker = await startProcess(
      ["start", "--upstream", simUrl, "--listen", "127.0.0.1:0", "--socket", socket],
      { GITHUB_TOKEN: "ghp_simulated", REDIS_URL: redis.url, AO_BROKER_STATE_DIR: join(dir, "broker") },
      /open a session/,
    );
    children.push(broker.child);
    const client = await connectBroker({ socketPath: socket });
    const plain = await client.openSession({ id: "bench-plain", repo: "acme/widgets" });
    await client.close();

    const bin = join(dir, "bin");
    const shim = installShim({ dir: bin, env: { PATH: BASE_PATH } }).shimPath;
    const home = join(dir, "home");
    mkdirSync(join(home, "tmp"), { recursive: true });
    const quiet = {
      HOME: home,
      TMPDIR: join(home, "tmp"),
      GH_CONFIG_DIR: join(home, "gh"),
      GH_NO_UPDATE_NOTIFIER: "1",
      GH_PROMPT_DISABLED: "1",
      LANG: "C.UTF-8",
    };
    const state = join(dir, "shim-state");
    const directEnv = {
      PATH: BASE_PATH,
      ...quiet,
      GH_HOST: "github.localhost",
      HTTP_PROXY: simUrl,
      NO_PROXY: "",
      GH_TOKEN: "ghp_simulated",
    };
    const brokerEnv = { PATH: BASE_PATH, ...quiet, ...plain.env };
    const shimEnv = {
      PATH: `${bin}:${BASE_PATH}`,
      ...quiet,
      AO_BROKER_SOCKET: socket,
      AO_BROKER_SHIM_STATE: state,
      AO_SESSION_ID: "bench-shim",
    };
    const repoEnv = { GH_REPO: "github.localhost/acme/widgets" };
    const insteadOf = {
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "url.https://github.localhost/.insteadOf",
      GIT_CONFIG_VALUE_0: "https://github.com/",
    };
    const checkout = checkoutDir(dir);
    const view = ["pr", "view", "1"];

    const arms: Arm[] = [
      { name: "direct", run: () => timed(GH, view, { ...directEnv, ...repoEnv }) },
      { name: "broker", run: () => timed(GH, view, { ...brokerEnv }) },
      { name: "shim", run: () => timed(shim, view, { ...shimEnv, GH_REPO: "acme/widgets" }) },
      { name: "direct-checkout", run: () => timed(GH, view, { ...directEnv, ...insteadOf }, checkout) },
      { name: "shim-checkout", run: () => timed(shim, view, shimEnv, checkout) },
    ];
    process.stderr.write(
      `bench:shim: warming up, then ${count} interleaved rounds of ${arms.length} arms…\n`,
    );
    await rounds(arms, 3, 0);
    const samples = await rounds(arms, count);

    let n = 0;
    const firstUse = await rounds(
      [
        {
          name: "shim-first-use",
          run: () =>
            timed(shim, view, { ...shimEnv, GH_REPO: "acme/widgets", AO_SESSION_ID: `bench-first-${++n}` }),
        },
      ],
      Math.min(15, count),
    );

    let forms: Record<string, number[]> | undefined;
    if (values.forms) {
      const nodeShim = join(dir, "node-shim.mjs");
      writeFileSync(nodeShim, NODE_SHIM, { mode: 0o755 });
      const fake = {
        ...shimEnv,
        AO_BROKER_GH: "/bin/true",
        GH_REPO: "acme/widgets",
        AO_BROKER_SHIM_NOTICE_AFTER: "0",
      };
      await timed(shim, view, fake);
      forms = await rounds(
        [
          { name: "true (no shim)", run: () => timed("/bin/true", view, fake) },
          { name: "sh shim (dash)", run: () => timed(shim, view, fake) },
          { name: "sh shim under bash", run: () => timed("bash", [shim, ...view], fake) },
          { name: "node shim", run: () => timed(process.execPath, [nodeShim, ...view], fake) },
        ],
        count,
        20,
      );
    }

    const table = summary({ ...samples, ...firstUse, ...(forms ?? {}) });
    const d = (a: string, b: string) =>
      round((table[a]?.median ?? Number.NaN) - (table[b]?.median ?? Number.NaN));
    const result = {
      machine: {
        cores: (await import("node:os")).cpus().length,
        node: process.version,
        gh: execFileSync(GH, ["--version"], { encoding: "utf8" }).split("\n")[0],
      },
      rounds: count,
      medians: table,
      added: {
        "shim vs direct (gh pr view 1, GH_REPO)": d("shim", "direct"),
        "shim vs broker without shim": d("shim", "broker"),
        "broker vs direct": d("broker", "direct"),
        "shim vs direct, in a checkout": d("shim-checkout", "direct-checkout"),
        "first use vs direct": d("shim-first-use", "direct"),
        ...(forms
          ? {
              "sh shim (dash), do-nothing gh": d("sh shim (dash)", "true (no shim)"),
              "sh shim under bash, do-nothing gh": d("sh shim under bash", "true (no shim)"),
              "node shim, do-nothing gh": d("node shim", "true (no shim)"),
            }
          : {}),
      },
      goalMs: 20,
    };
    const lines = [
      `ARM                       MEDIAN ms   P25    P75     N`,
      ...Object.entries(table).map(
        ([name, s]) =>
          `${name.padEnd(24)} ${String(s.median).padStart(9)} ${String(s.p25).padStart(6)} ${String(s.p75).padStart(6)} ${String(s.n).padStart(5)}`,
      ),
      "",
      "ADDED (difference of medians, ms)",
      ...Object.entries(result.added).map(([k, v]) => `  ${k.padEnd(40)} ${String(v).padStart(7)}`),
      "",
      `goal: shim vs direct ≤ ${result.goalMs} ms → ${result.added["shim vs direct (gh pr view 1, GH_REPO)"] <= result.goalMs ? "met" : "NOT met"}`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
    if (values.json) writeFileSync(values.json, `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    for (const child of children) child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 300));
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
