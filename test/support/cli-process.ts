/**
 * Runs the built CLI (dist/cli.js, what `npm ci` gives users) as a child process, and real gh with
 * a given environment. Long-running commands (start, sim) are waited on until they print a line.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { join } from "node:path";

export const CLI = join(import.meta.dirname, "..", "..", "dist", "cli.js");

export interface Completed {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runCli(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
  timeoutMs = 20_000,
): Promise<Completed> {
  return runProcess(process.execPath, [CLI, ...args], env, timeoutMs);
}

export function runProcess(
  file: string,
  args: readonly string[],
  env: Record<string, string | undefined> = {},
  timeoutMs = 20_000,
  options: { cwd?: string; input?: string } = {},
): Promise<Completed> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      [...args],
      { env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, cwd: options.cwd },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
    else child.stdin?.end();
  });
}

export interface LongRunning {
  readonly child: ChildProcess;
  readonly output: () => string;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
}

/** Starts the CLI and resolves once its stdout matches `ready`. */
export async function startCli(
  args: readonly string[],
  ready: RegExp,
  env: Record<string, string | undefined> = {},
  timeoutMs = 20_000,
): Promise<LongRunning> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (c: Buffer) => {
    out += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`timed out waiting for ${ready}; output:\n${out}\n${err}`)),
      timeoutMs,
    );
    const check = () => {
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", check);
    child.on("exit", () => {
      clearTimeout(timer);
      reject(new Error(`exited before ready; output:\n${out}\n${err}`));
    });
  });
  return { child, output: () => `${out}${err}`, exited };
}

/** The environment that routes real gh straight to a simulator (no broker). */
export function directGhEnv(simUrl: string, token = "ghp_simulated"): Record<string, string> {
  return {
    GH_HOST: "github.localhost",
    GH_TOKEN: token,
    GH_REPO: "github.localhost/acme/widgets",
    HTTP_PROXY: simUrl,
    http_proxy: simUrl,
    NO_PROXY: "",
    no_proxy: "",
    GH_CONFIG_DIR: "/tmp/aob-gh-config",
    GH_NO_UPDATE_NOTIFIER: "1",
    GH_PROMPT_DISABLED: "1",
  };
}
