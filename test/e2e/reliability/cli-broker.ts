/**
 * The real daemon as a child process for crash tests: `node dist/cli.js start` with a private
 * state directory and its EMBEDDED Redis default (never the machine's Redis: the 127.0.0.1:6379
 * probe is switched off), killed with SIGKILL and started again on the same port, socket and state.
 * Also reads the broker's Redis directly (the embedded server's socket) to see what sat in the
 * upstream queue at the moment of a crash.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { Redis } from "ioredis";
import { type LongRunning, startCli } from "../../support/cli-process.js";

export interface CliBrokerOptions {
  readonly dir: string;
  readonly upstreamUrl: string;
  readonly port: number;
  /** Extra environment (LOG_LEVEL, OTEL_*...). */
  readonly env?: Record<string, string>;
  readonly token?: string;
  /** A shared Redis (`--redis`); without it the broker uses its embedded default. */
  readonly redisUrl?: string;
  /** Config file contents (`--config`), shaped like docs/config.md. */
  readonly config?: Record<string, unknown>;
}

export class CliBroker {
  readonly stateDir: string;
  readonly socketPath: string;
  readonly gatewayUrl: string;
  /** Everything every incarnation printed. */
  readonly outputs: string[] = [];
  /** How the last incarnation ended. */
  lastExit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  #running: LongRunning | undefined;
  readonly #options: CliBrokerOptions;

  constructor(options: CliBrokerOptions) {
    this.#options = options;
    this.stateDir = join(options.dir, "state");
    this.socketPath = join(options.dir, "broker.sock");
    this.gatewayUrl = `http://127.0.0.1:${options.port}`;
  }

  get pid(): number | undefined {
    return this.#running?.child.pid;
  }

  get env(): Record<string, string | undefined> {
    return {
      GITHUB_TOKEN: this.#options.token ?? "ghp_simulated",
      GH_TOKEN: undefined,
      REDIS_URL: undefined,
      AO_BROKER_STATE_DIR: this.stateDir,
      AO_BROKER_SOCKET: this.socketPath,
      AO_BROKER_PROBE_LOCAL_REDIS: "0",
      OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
      ...this.#options.env,
    };
  }

  async start(): Promise<void> {
    const args = [
      "start",
      "--upstream",
      this.#options.upstreamUrl,
      "--listen",
      `127.0.0.1:${this.#options.port}`,
      "--socket",
      this.socketPath,
    ];
    if (this.#options.redisUrl) args.push("--redis", this.#options.redisUrl);
    if (this.#options.config) {
      const file = join(this.#options.dir, "config.json");
      writeFileSync(file, JSON.stringify(this.#options.config));
      args.push("--config", file);
    }
    const running = await startCli(args, /ao-broker listening/, this.env, 30_000);
    this.#running = running;
    running.child.once("exit", (code, signal) => {
      this.lastExit = { code, signal };
    });
    void running.exited.then(() => this.outputs.push(running.output()));
  }

  /** SIGKILL: no drain, no cleanup; resolves once the process is gone. */
  async kill(): Promise<void> {
    const running = this.#running;
    if (!running) return;
    this.#running = undefined;
    running.child.kill("SIGKILL");
    await running.exited;
  }

  /** SIGTERM and wait (drains, stops the embedded Redis it found). */
  async stop(): Promise<void> {
    const running = this.#running;
    if (!running) return;
    this.#running = undefined;
    running.child.kill("SIGTERM");
    await running.exited;
  }

  /**
   * Stops the broker, then its embedded Redis: that one runs detached to outlive broker crashes,
   * so a test that is done with it must end it itself.
   */
  async stopWithRedis(): Promise<void> {
    const redisPid = this.redisPid();
    await this.stop();
    if (!redisPid) return;
    try {
      process.kill(redisPid, "SIGKILL");
    } catch {
      // already stopped with the broker
    }
  }

  output(): string {
    return [...this.outputs, this.#running?.output() ?? ""].join("\n");
  }

  get redisSocket(): string {
    return join(this.stateDir, "redis", "redis.sock");
  }

  redisPid(): number | undefined {
    try {
      return Number(readFileSync(join(this.stateDir, "redis", "redis.pid"), "utf8").trim()) || undefined;
    } catch {
      return undefined;
    }
  }

  /** A plain connection to the broker's embedded Redis (for inspection only). */
  redis(): Redis {
    const client = new Redis({ path: this.redisSocket, lazyConnect: false, maxRetriesPerRequest: 3 });
    client.on("error", () => undefined);
    return client;
  }
}

/** A free TCP port on loopback (closed again before returning). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface QueuedWrites {
  /** Markers of write jobs waiting (not started) in the queue: they must run exactly once. */
  readonly queued: string[];
  /** Markers of write jobs that were running: their outcome is unknown, at most once. */
  readonly active: string[];
  /** Marker → BullMQ job id, to ask later what became of the job (writeJobFate). */
  readonly jobIds: ReadonlyMap<string, string>;
}

/**
 * The write lane as BullMQ left it in Redis, each job named by the marker found in its body.
 * Read right after a SIGKILL, nothing moves it: waiting jobs never started.
 */
/**
 * The identity-scoped namespace under a configured prefix (broker/redis/identity-namespace.ts):
 * these tests run brokers of one identity, so exactly one namespace claim exists.
 */
async function namespaceUnder(redis: Redis, prefix: string): Promise<string> {
  const claims = await redis.keys(`${prefix}:*:identity`);
  return claims.length === 1 ? (claims[0] as string).slice(0, -":identity".length) : prefix;
}

export async function queuedWrites(redis: Redis, prefix = "aob", marker: RegExp): Promise<QueuedWrites> {
  const base = `{${await namespaceUnder(redis, prefix)}:up}:writes`;
  const [wait, prioritized, delayed, active] = await Promise.all([
    redis.lrange(`${base}:wait`, 0, -1),
    redis.zrange(`${base}:prioritized`, "0", "-1"),
    redis.zrange(`${base}:delayed`, "0", "-1"),
    redis.lrange(`${base}:active`, 0, -1),
  ]);
  const jobIds = new Map<string, string>();
  const markersOf = async (ids: string[]) => {
    const out: string[] = [];
    for (const id of ids) {
      const data = await redis.hget(`${base}:${id}`, "data");
      if (!data) continue;
      const body = (JSON.parse(data) as { body?: string }).body;
      const text = body ? Buffer.from(body, "base64").toString("utf8") : "";
      const found = marker.exec(text)?.[0];
      if (found) {
        out.push(found);
        jobIds.set(found, id);
      }
    }
    return out;
  };
  return {
    queued: await markersOf([...wait, ...prioritized, ...delayed]),
    active: await markersOf(active),
    jobIds,
  };
}

/** What BullMQ recorded of a write job's end, for a failure message that says why. */
export async function writeJobFate(redis: Redis, id: string, prefix = "aob"): Promise<string> {
  const job = await redis.hgetall(`{${await namespaceUnder(redis, prefix)}:up}:writes:${id}`);
  if (!job.data) return "job gone (removed after it finished)";
  const at = (ms?: string) => (ms ? new Date(Number(ms)).toISOString() : "never");
  return `started ${at(job.processedOn)}, finished ${at(job.finishedOn)}, ${
    job.failedReason ? `failed: ${job.failedReason}` : `returned ${job.returnvalue ?? "nothing"}`
  }`;
}

/**
 * Whether a write job set its "started" marker (broker/upstream/upstream-processor.ts: set
 * immediately before the send, kept for the deadline plus ten minutes): a run of it may have
 * sent it. Without the marker no run ever began sending it.
 */
export async function writeStarted(redis: Redis, id: string, prefix = "aob"): Promise<boolean> {
  return (await redis.exists(`{${await namespaceUnder(redis, prefix)}:up}:started:${id}`)) === 1;
}
