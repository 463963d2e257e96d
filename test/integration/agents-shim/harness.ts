/**
 * Shared pieces for the shim's integration and end-to-end tests: an installed shim in a scratch
 * directory (the real installer, the built helper), a real broker on a private redis-server
 * (simulated upstream, or a given simulator), fake gh and git scripts that report what they were
 * given, the environments the two paths of a comparison use, and a process runner that keeps exit
 * codes and signals apart.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type InstallReport, installShim } from "../../../agents-shim/index.js";
import { type RunningBroker, startBroker } from "../../../broker/index.js";
import { silentLogger } from "../../../common/index.js";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

export const ROOT = join(import.meta.dirname, "..", "..", "..");
export const HELPER = join(ROOT, "dist", "shim-helper.js");
export const TEMPLATES = join(ROOT, "agents-shim", "template");
export const REAL_GH = execFileSync("sh", ["-c", "command -v gh"], { encoding: "utf8" }).trim();
export const BASE_PATH = process.env.PATH ?? "/usr/bin:/bin";

export interface Scratch {
  readonly dir: string;
  cleanup(): void;
}

export function scratch(prefix: string): Scratch {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Installs the shim with the real installer into `dir` (its templates and the built helper). */
export function installTestShim(dir: string, options: { fallback?: "fail" | "direct" } = {}): InstallReport {
  return installShim({
    dir,
    helperPath: HELPER,
    templateDir: TEMPLATES,
    env: { PATH: BASE_PATH },
    fallback: options.fallback,
  });
}

/** Writes an executable script. */
export function script(file: string, body: string): string {
  writeFileSync(file, body);
  chmodSync(file, 0o755);
  return file;
}

/**
 * A fake gh that prints what it got as one JSON line: argv, the environment, stdin (when
 * FAKE_STDIN=1), then exits with FAKE_EXIT (default 0) or sleeps FAKE_SLEEP seconds first.
 */
export function fakeGh(dir: string): string {
  return script(
    join(dir, "fake-gh"),
    `#!/usr/bin/env node
const fs = require("node:fs");
const input = process.env.FAKE_STDIN === "1" ? fs.readFileSync(0, "utf8") : undefined;
process.stdout.write(JSON.stringify({ argv: process.argv.slice(2), env: process.env, input, cwd: process.cwd() }) + "\\n");
const sleep = Number(process.env.FAKE_SLEEP || 0);
if (sleep > 0) {
  process.on("SIGTERM", () => { fs.writeFileSync(process.env.FAKE_SIGNAL_FILE || "/dev/null", "TERM"); process.exit(143); });
  setTimeout(() => process.exit(Number(process.env.FAKE_EXIT || 0)), sleep * 1000);
} else process.exit(Number(process.env.FAKE_EXIT || 0));
`,
  );
}

export interface Completed {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

export interface RunOptions {
  readonly env: Record<string, string>;
  readonly cwd?: string | undefined;
  readonly input?: string | undefined;
  /** Under a pseudo-terminal (script -qec), as a person would run it. */
  readonly tty?: boolean | undefined;
  /** @defaultValue 30_000 */
  readonly timeoutMs?: number | undefined;
  /** Its own process group, so a test can signal the group as a terminal would. */
  readonly detached?: boolean | undefined;
  readonly onSpawn?: ((child: ChildProcess) => void) | undefined;
}

function quote(arg: string): string {
  return `'${arg.replace(/'/g, "'\\''")}'`;
}

export function run(file: string, args: readonly string[], options: RunOptions): Promise<Completed> {
  const started = Date.now();
  const [cmd, argv] = options.tty
    ? ["script", ["-qec", [file, ...args].map(quote).join(" "), "/dev/null"]]
    : [file, [...args]];
  return new Promise((resolve) => {
    const child = spawn(cmd as string, argv as string[], {
      env: options.env,
      cwd: options.cwd,
      detached: options.detached,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 30_000);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const fix = (s: string) => (options.tty ? s.replace(/\r\n/g, "\n") : s);
      resolve({ code, signal, stdout: fix(stdout), stderr: fix(stderr), ms: Date.now() - started });
    });
    child.stdin.on("error", () => {});
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
    options.onSpawn?.(child);
  });
}

/** Runs `tasks` with at most `limit` in flight (two cores; gh starts in ~50-100 ms). */
export async function pooled<T>(tasks: readonly (() => Promise<T>)[], limit = 6): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await (tasks[i] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

export interface ShimBroker {
  readonly broker: RunningBroker;
  readonly redis: TestRedis;
  /** The broker's Redis key prefix. */
  readonly prefix: string;
  readonly socketPath: string;
  readonly gatewayUrl: string;
  /** The simulator behind the broker. */
  readonly upstream: RunningSimulator;
  close(): Promise<void>;
}

/**
 * A real broker on a private redis-server. With `upstream`, it talks to that simulator with its
 * PAT; without, it runs its own embedded simulator (--simulate).
 */
export async function startShimBroker(
  dir: string,
  options: { upstream?: RunningSimulator; config?: Record<string, unknown> } = {},
): Promise<ShimBroker> {
  const redis = await startTestRedis();
  mkdirSync(dir, { recursive: true });
  const socketPath = join(dir, "broker.sock");
  const prefix = redis.prefix();
  let embedded: RunningSimulator | undefined;
  const broker = await startBroker({
    startSimulator: async () => {
      embedded = await startSimulator({ port: 0 });
      return embedded;
    },
    overrides: {
      listen: "127.0.0.1:0",
      socket: socketPath,
      stateDir: join(dir, "broker-state"),
      redis: { url: redis.url, prefix },
      ...(options.upstream ? { upstream: { url: options.upstream.url } } : { simulate: true }),
      ...options.config,
    },
    env: options.upstream ? { GITHUB_TOKEN: options.upstream.token } : {},
    logger: silentLogger(),
    probeLocalRedis: false,
  });
  const upstream = options.upstream ?? embedded;
  if (!upstream) throw new Error("the broker has no simulator");
  return {
    broker,
    redis,
    // Keys live under the identity-scoped namespace, not the configured prefix itself.
    prefix: broker.redis.namespace,
    socketPath: broker.socketPath,
    gatewayUrl: broker.gatewayUrl,
    upstream,
    close: async () => {
      await broker.close();
      await redis.stop();
    },
  };
}

/** A private HOME with a TMPDIR and a gh config dir: gh caches introspection and logs there. */
export function home(base: string, name: string): string {
  const dir = join(base, `home-${name}`);
  mkdirSync(join(dir, "tmp"), { recursive: true });
  return dir;
}

const GH_QUIET = {
  LANG: "C.UTF-8",
  TZ: "UTC",
  GH_NO_UPDATE_NOTIFIER: "1",
  GH_PROMPT_DISABLED: "1",
  GH_PAGER: "cat",
};

/** The environment of an agent whose gh is the shim: no broker variables at all, only AO's. */
export function agentEnv(options: {
  bin: string;
  socket: string;
  home: string;
  session?: string | undefined;
  extra?: Record<string, string> | undefined;
}): Record<string, string> {
  return {
    PATH: `${options.bin}:${BASE_PATH}`,
    HOME: options.home,
    TMPDIR: join(options.home, "tmp"),
    GH_CONFIG_DIR: join(options.home, "gh"),
    AO_BROKER_SOCKET: options.socket,
    ...(options.session ? { AO_SESSION_ID: options.session } : {}),
    ...GH_QUIET,
    ...options.extra,
  };
}

/** The environment of gh talking straight to a simulator (docs/architecture.md, "How real gh is routed"). */
export function directEnv(sim: RunningSimulator, homeDir: string, extra: Record<string, string> = {}) {
  return {
    PATH: BASE_PATH,
    HOME: homeDir,
    TMPDIR: join(homeDir, "tmp"),
    GH_CONFIG_DIR: join(homeDir, "gh"),
    GH_HOST: "github.localhost",
    HTTP_PROXY: sim.url,
    NO_PROXY: "",
    no_proxy: "",
    GH_TOKEN: sim.token,
    ...GH_QUIET,
    ...extra,
  };
}

/** A git checkout on `branch` whose remotes point at github.com (https unless given another URL). */
export function checkout(
  base: string,
  branch: string,
  remotes: Record<string, string> = { origin: "acme/widgets" },
) {
  const dir = mkdtempSync(join(base, "repo-"));
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: dir,
      env: {
        PATH: BASE_PATH,
        HOME: dir,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@t",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@t",
      },
      stdio: "pipe",
    });
  git("init", "-q", "-b", "main");
  writeFileSync(join(dir, "README.md"), "widgets\n");
  git("add", "README.md");
  git("commit", "-q", "-m", "init");
  for (const [name, repo] of Object.entries(remotes))
    git("remote", "add", name, repo.includes(":") ? repo : `https://github.com/${repo}.git`);
  if (branch !== "main") git("checkout", "-q", "-b", branch);
  return dir;
}
