/**
 * `ao-broker run -- <command>`: brokers a whole process tree that is not an agent — AO's
 * orchestrator (`ao start`, `ao status`, the dashboard) above all. AO runs its own gh through
 * execGhObserved, which removes `~/.ao/bin` from PATH on purpose, so a shim there never sees those
 * calls; the gateway's environment does not depend on PATH: GH_HOST=github.localhost sends gh to
 * http://api.github.localhost/, HTTP_PROXY sends that to the gateway, GH_TOKEN is the orchestrator
 * session's broker token. Every request of the command is then cached, budgeted and attributed to
 * that session.
 *
 * Deliberately not set: GH_REPO (the orchestrator works on many repositories), the lowercase
 * http_proxy (git's libcurl honours it and would send AO's own git traffic to the gateway), and
 * git's insteadOf (AO reads its remotes). AO_BROKER_RUN_SESSION names the session, so an agent that
 * inherits this environment and has its own AO_SESSION_ID is registered as itself by the shim.
 * While the command runs, a shim guard (shim-guard.ts) puts the shim back in front of AO's gh
 * wrapper whenever AO rewrites it.
 */
import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import type { BrokerClient } from "../client/index.js";
import { classifyGhFile } from "./core/shim-file.js";
import { defaultShimDir, type InstallReport } from "./install-shim.js";
import { readHead } from "./path-lookup.js";
import { guardShim, type ShimGuard } from "./shim-guard.js";

export const DEFAULT_ORCHESTRATOR_SESSION = "ao-orchestrator";

export interface OrchestratorEnvInput {
  readonly token: string;
  readonly gatewayUrl: string;
  readonly socketPath: string;
  readonly sessionId: string;
}

/** The variables `ao-broker run` adds to (or clears in) the command's environment. */
export function orchestratorEnv(input: OrchestratorEnvInput): Record<string, string> {
  return {
    GH_HOST: "github.localhost",
    GH_TOKEN: input.token,
    HTTP_PROXY: input.gatewayUrl,
    NO_PROXY: "",
    AO_BROKER_SOCKET: input.socketPath,
    AO_BROKER_RUN_SESSION: input.sessionId,
  };
}

export interface OpenOrchestratorOptions {
  readonly sessionId?: string | undefined;
  readonly repo: string;
  readonly projectId?: string | undefined;
  readonly weight?: number | undefined;
}

/** Opens (or re-opens) the orchestrator's session and returns the environment for the command. */
export async function openOrchestrator(
  client: BrokerClient,
  options: OpenOrchestratorOptions,
): Promise<{ sessionId: string; env: Record<string, string> }> {
  const sessionId = options.sessionId ?? DEFAULT_ORCHESTRATOR_SESSION;
  const opened = await client.openSession({
    id: sessionId,
    repo: options.repo,
    ...(options.projectId ? { projectId: options.projectId } : {}),
    ...(options.weight !== undefined ? { weight: options.weight } : {}),
  });
  const gatewayUrl = opened.env.HTTP_PROXY ?? opened.env.http_proxy;
  if (!gatewayUrl) throw new Error("the broker's session.open answer names no gateway (HTTP_PROXY)");
  return {
    sessionId,
    env: orchestratorEnv({
      token: opened.token,
      gatewayUrl,
      socketPath: opened.env.AO_BROKER_SOCKET ?? client.socketPath,
      sessionId,
    }),
  };
}

export interface RunBrokeredOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where the shim is; the guard runs when DIR/gh is the shim or AO's wrapper. @defaultValue ~/.ao/bin */
  readonly shimDir?: string | undefined;
  readonly guard?: boolean | undefined;
  readonly onRechain?: ((report: InstallReport) => void) | undefined;
}

/** Runs the command with the environment; resolves with its exit code (128+n for a signal). */
export function runBrokered(options: RunBrokeredOptions): Promise<number> {
  const dir = resolve(options.shimDir ?? defaultShimDir());
  const kind = classifyGhFile(readHead(join(dir, "gh"))).kind;
  let guard: ShimGuard | undefined;
  if (options.guard !== false && (kind === "shim" || kind === "ao-wrapper"))
    guard = guardShim({ dir, onRechain: options.onRechain });
  return new Promise((resolvePromise, reject) => {
    const child = spawn(options.command, [...options.args], { env: options.env, stdio: "inherit" });
    const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
    const handlers = (["SIGINT", "SIGTERM", "SIGHUP"] as const).map((signal) => {
      const handler = forward(signal);
      process.on(signal, handler);
      return [signal, handler] as const;
    });
    const done = () => {
      guard?.close();
      for (const [signal, handler] of handlers) process.off(signal, handler);
    };
    child.on("error", (error) => {
      done();
      reject(error);
    });
    child.on("close", (code, signal) => {
      done();
      const number = signal
        ? ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1, SIGKILL: 9 } as Record<string, number>)[signal]
        : 0;
      resolvePromise(code ?? 128 + (number ?? 1));
    });
  });
}
