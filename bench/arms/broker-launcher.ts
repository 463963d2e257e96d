/**
 * Starts the broker for one step, in this process (startBroker) or as its own process
 * (`node dist/cli.js start --config FILE`, the way a user runs it). A child broker has its own
 * event loop and core, and its CPU and memory can be measured apart from the agents and the
 * simulator (/proc); an in-process one is what tests use when no bundle exists.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startBroker } from "../../broker/index.js";
import { connectBroker } from "../../client/index.js";
import { silentLogger } from "../../common/index.js";
import type { ResourceUse } from "../core/report-types.js";
import { guardProcess } from "../process-guard.js";
import { readProcess } from "../resource-sampler.js";

export type BrokerProcessMode = "child" | "in-process";

export interface LaunchedBroker {
  readonly gatewayUrl: string;
  readonly socketPath: string;
  readonly mode: BrokerProcessMode;
  /** Marks the start of the measured window (child brokers only). */
  markWindowStart(): void;
  /** The child's CPU and peak memory since the mark; null in-process. */
  resourceUse(): ResourceUse | null;
  close(): Promise<void>;
}

export interface LaunchOptions {
  /** The full broker config (overrides of the defaults), including listen, socket, redis. */
  readonly config: Record<string, unknown>;
  readonly socketPath: string;
  readonly stateDir: string;
  readonly token: string;
  /** @defaultValue "child" when the CLI bundle is found, else "in-process" */
  readonly mode?: BrokerProcessMode | undefined;
}

/** dist/cli.js: this very file when bundled, else next to the sources. */
export function findCliBundle(): string | undefined {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith(join("dist", "cli.js"))) return here;
  const candidate = join(here, "..", "..", "..", "dist", "cli.js");
  return existsSync(candidate) ? candidate : undefined;
}

async function waitForSocket(socketPath: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`the broker process exited (${child.exitCode}): ${log().slice(-500)}`);
    try {
      const client = await connectBroker({ socketPath, connectTimeoutMs: 500 });
      await client.close();
      return;
    } catch {
      if (Date.now() > deadline)
        throw new Error(`the broker process did not open ${socketPath} in 20 s: ${log().slice(-500)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function launchChild(cli: string, options: LaunchOptions): Promise<LaunchedBroker> {
  const file = join(options.stateDir, "bench-broker.json");
  writeFileSync(file, JSON.stringify({ ...options.config, logLevel: "warn" }));
  const child = spawn(process.execPath, [cli, "start", "--config", file], {
    env: { ...process.env, GITHUB_TOKEN: options.token, GH_TOKEN: "", AO_BROKER_PROBE_LOCAL_REDIS: "0" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exitedOnce = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stopChild = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exitedOnce;
    clearTimeout(timer);
  };
  const unguard = guardProcess("a broker process", child.pid, stopChild);
  let log = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    log = (log + chunk.toString("utf8")).slice(-4000);
  });
  try {
    await waitForSocket(options.socketPath, child, () => log);
  } catch (error) {
    child.kill("SIGKILL");
    unguard();
    throw error;
  }
  const client = await connectBroker({ socketPath: options.socketPath });
  const gatewayUrl = client.broker.gatewayUrl;
  await client.close();
  const pid = child.pid ?? 0;
  let base = readProcess(pid);
  let startedAt = performance.now();
  let peakRss = base?.rssMb ?? 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, readProcess(pid)?.rssMb ?? 0);
  }, 500);
  sampler.unref();
  return {
    gatewayUrl,
    socketPath: options.socketPath,
    mode: "child",
    markWindowStart: () => {
      base = readProcess(pid);
      startedAt = performance.now();
      peakRss = base?.rssMb ?? 0;
    },
    resourceUse: () => {
      const now = readProcess(pid);
      if (!now || !base) return null;
      const cpuSeconds = now.cpuSeconds - base.cpuSeconds;
      const wall = (performance.now() - startedAt) / 1000;
      const round = (n: number) => Math.round(n * 10) / 10;
      return {
        cpuSeconds: round(cpuSeconds),
        cpuPercent: round(wall > 0 ? (cpuSeconds / wall) * 100 : 0),
        rssMb: round(Math.max(peakRss, now.rssMb)),
      };
    },
    close: async () => {
      clearInterval(sampler);
      await stopChild();
      unguard();
    },
  };
}

export async function launchBroker(options: LaunchOptions): Promise<LaunchedBroker> {
  const cli = findCliBundle();
  const mode = options.mode ?? (cli ? "child" : "in-process");
  if (mode === "child" && cli) return launchChild(cli, options);
  const broker = await startBroker({
    overrides: { ...options.config, logLevel: "silent" },
    env: { GITHUB_TOKEN: options.token },
    probeLocalRedis: false,
    logger: silentLogger(),
  });
  return {
    gatewayUrl: broker.gatewayUrl,
    socketPath: broker.socketPath,
    mode: "in-process",
    markWindowStart: () => undefined,
    resourceUse: () => null,
    close: () => broker.close(),
  };
}
