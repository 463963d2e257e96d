/**
 * Drives the real gh binary (2.23) against a simulator: a clean environment (no inherited
 * tokens or config), GH_HOST=github.localhost + HTTP_PROXY + GH_TOKEN (+ GH_REPO unless a
 * checkout says which repo), a private config dir and TMPDIR (gh caches run logs and the
 * PullRequest_fields introspection there), optional pty through script(1), and a git checkout
 * whose origin is https://github.com/acme/widgets.git rewritten to github.localhost through
 * git's environment config, as docs/architecture.md "How real gh is routed" describes.
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunningSimulator } from "../../../github-sim/index.js";

export const GH = process.env.AO_BROKER_GH ?? "gh";

export interface GhResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface GhOptions {
  readonly env: Record<string, string>;
  readonly cwd?: string;
  /** Run under a pseudo-terminal (script -qec), as a person would. */
  readonly tty?: boolean;
  /** @defaultValue 20_000 */
  readonly timeoutMs?: number;
}

/** A scratch directory removed by `cleanup()`. */
export function scratch(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The environment that routes gh to the simulator (each call gets its own gh config and TMPDIR). */
export function ghEnv(
  sim: RunningSimulator,
  base: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  const home = mkdtempSync(join(base, "home-"));
  mkdirSync(join(home, "tmp"));
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    TMPDIR: join(home, "tmp"),
    GH_CONFIG_DIR: join(home, "gh"),
    LANG: "C.UTF-8",
    TZ: "UTC",
    GH_HOST: "github.localhost",
    HTTP_PROXY: `http://127.0.0.1:${sim.port}`,
    GH_TOKEN: sim.token,
    GH_REPO: "github.localhost/acme/widgets",
    GH_NO_UPDATE_NOTIFIER: "1",
    GH_PROMPT_DISABLED: "1",
    GH_PAGER: "cat",
    ...extra,
  };
}

function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, "'\\''")}'`;
}

export function gh(args: readonly string[], options: GhOptions): Promise<GhResult> {
  const file = options.tty ? "script" : GH;
  const argv = options.tty ? ["-qec", [GH, ...args].map(shellQuote).join(" "), "/dev/null"] : [...args];
  return new Promise((resolve) => {
    execFile(
      file,
      argv,
      {
        env: options.env,
        cwd: options.cwd,
        timeout: options.timeoutMs ?? 20_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
        resolve({ code, stdout: options.tty ? stdout.replace(/\r\n/g, "\n") : stdout, stderr });
      },
    );
  });
}

/** Removes ANSI colour codes (TTY output). */
export function plain(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are what this strips.
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "");
}

/** Runs `tasks` with at most `limit` in flight (gh start-up is ~50-100 ms; two cores). */
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

export interface Checkout {
  readonly dir: string;
  /** Env for gh inside the checkout: no GH_REPO, git's insteadOf through GIT_CONFIG_*. */
  readonly env: Record<string, string>;
}

/**
 * A git checkout on `branch` with origin https://github.com/acme/widgets.git (and, optionally,
 * an `upstream` remote). gh sees github.localhost through url.<base>.insteadOf set in the
 * environment, so nothing in the repository itself points at the simulator.
 */
export function checkout(
  sim: RunningSimulator,
  base: string,
  branch: string,
  remotes: Record<string, string> = { origin: "acme/widgets" },
): Checkout {
  const dir = mkdtempSync(join(base, "repo-"));
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? "",
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
    git("remote", "add", name, `https://github.com/${repo}.git`);
  if (branch !== "main") git("checkout", "-q", "-b", branch);
  const { GH_REPO: _repo, ...env } = ghEnv(sim, base);
  return {
    dir,
    env: {
      ...env,
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "url.https://github.localhost/.insteadOf",
      GIT_CONFIG_VALUE_0: "https://github.com/",
      GIT_TERMINAL_PROMPT: "0",
    },
  };
}
