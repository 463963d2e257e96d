/**
 * The embedded Redis default: when the user names no Redis and none answers on 127.0.0.1:6379,
 * the broker runs a private `redis-server` on a Unix socket under its state directory.
 *
 * Why detached and persistent: the broker may be killed -9; what it accepted (sessions, tokens,
 * queued writes) lives in Redis, so Redis must outlive the broker and keep its data on disk (AOF,
 * fsync every second). A restarted broker finds the socket answering PING and reuses the server.
 * Tests use the same code with `detached: false, persist: false` so nothing outlives the run.
 *
 * The socket is created 0700 in a 0700 directory: only this OS user talks to the private Redis.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { delimiter, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { AoError, CommonErrors } from "../../common/index.js";
import { REDIS_DEFAULTS } from "./redis-settings.js";

export interface EmbeddedRedisOptions {
  /** Directory that holds the socket, pid file, AOF and log. Created 0700 if missing. */
  readonly dir: string;
  /** redis-server binary. @defaultValue REDIS_SERVER env, else the first on PATH */
  readonly binary?: string;
  /** Keep data on disk (AOF, everysec). @defaultValue true */
  readonly persist?: boolean;
  /** Run in its own process group so it survives the parent. @defaultValue true */
  readonly detached?: boolean;
  /** @defaultValue 10000 */
  readonly startTimeoutMs?: number;
  /** Redis maxmemory, e.g. "512mb". The broker's cache bounds itself; this is a backstop. */
  readonly maxmemory?: string;
}

export interface EmbeddedRedis {
  /** `unix:///abs/path/redis.sock` */
  readonly url: string;
  readonly socketPath: string;
  readonly pid: number;
  /** True when a server left by an earlier broker was found answering and reused. */
  readonly reused: boolean;
  /** Shut the server down (SHUTDOWN, then SIGKILL after a grace period). */
  stop(): Promise<void>;
}

const INSTALL_HINT =
  "install one (Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis) " +
  "or point the broker at a Redis with REDIS_URL / --redis";

export function findRedisServer(explicit?: string): string | undefined {
  const candidate = explicit ?? process.env.REDIS_SERVER;
  if (candidate) return existsSync(candidate) ? candidate : undefined;
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const full = join(dir, "redis-server");
    if (existsSync(full)) return full;
  }
  for (const full of ["/usr/bin/redis-server", "/usr/local/bin/redis-server", "/usr/sbin/redis-server"]) {
    if (existsSync(full)) return full;
  }
  return undefined;
}

/** Sends one inline PING over a Unix socket or TCP and resolves true on +PONG. Never throws. */
export function pingRedis(target: { path: string } | { host: string; port: number }, timeoutMs = 500) {
  return new Promise<boolean>((resolve) => {
    const socket = "path" in target ? connect(target.path) : connect(target.port, target.host);
    let answer = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on("error", () => done(false));
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
      if (answer.includes("\r\n")) done(answer.startsWith("+PONG"));
    });
  });
}

function readPid(pidFile: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(pidFile, "utf8").trim(), 10);
    return Number.isFinite(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function shutdown(socketPath: string, pid: number | undefined): Promise<void> {
  // SHUTDOWN over the socket lets Redis flush its AOF; SIGTERM does the same; SIGKILL is the fallback.
  if (pid !== undefined && isAlive(pid)) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // already gone
    }
    for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(20);
    if (isAlive(pid)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
  rmSync(socketPath, { force: true });
}

export async function startEmbeddedRedis(options: EmbeddedRedisOptions): Promise<EmbeddedRedis> {
  const dir = options.dir;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const socketPath = join(dir, "redis.sock");
  const pidFile = join(dir, "redis.pid");
  const url = `unix://${socketPath}`;

  if (existsSync(socketPath) && (await pingRedis({ path: socketPath }))) {
    const pid = readPid(pidFile) ?? 0;
    return { url, socketPath, pid, reused: true, stop: () => shutdown(socketPath, pid || undefined) };
  }

  const binary = findRedisServer(options.binary);
  if (!binary) {
    throw new AoError(CommonErrors.AO_ERR_REDIS_UNAVAILABLE, `no redis-server binary found: ${INSTALL_HINT}`);
  }
  rmSync(socketPath, { force: true });
  const persist = options.persist ?? true;
  const args = [
    "--port",
    "0",
    "--unixsocket",
    socketPath,
    "--unixsocketperm",
    "700",
    "--dir",
    dir,
    "--pidfile",
    pidFile,
    "--logfile",
    join(dir, "redis.log"),
    "--daemonize",
    "no",
    "--save",
    "",
    "--appendonly",
    persist ? "yes" : "no",
    "--appendfsync",
    "everysec",
  ];
  if (options.maxmemory) args.push("--maxmemory", options.maxmemory, "--maxmemory-policy", "noeviction");
  const detached = options.detached ?? true;
  writeFileSync(join(dir, "redis.log"), "", { flag: "a" });
  const child = spawn(binary, args, { detached, stdio: "ignore" });
  if (detached) child.unref();
  let exited: number | null | undefined;
  child.on("exit", (code) => {
    exited = code;
  });
  child.on("error", () => {
    exited = -1;
  });

  const deadline = Date.now() + (options.startTimeoutMs ?? REDIS_DEFAULTS.startTimeoutMs);
  while (Date.now() < deadline) {
    if (exited !== undefined) break;
    if (existsSync(socketPath) && (await pingRedis({ path: socketPath }, 200))) {
      const pid = child.pid ?? 0;
      if (!detached) {
        // A test-owned server must not outlive the test process, even if it crashes.
        const killOnExit = () => {
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // gone
          }
        };
        process.once("exit", killOnExit);
        return {
          url,
          socketPath,
          pid,
          reused: false,
          stop: async () => {
            process.off("exit", killOnExit);
            await shutdown(socketPath, pid);
          },
        };
      }
      return { url, socketPath, pid, reused: false, stop: () => shutdown(socketPath, pid) };
    }
    await sleep(15);
  }
  if (child.pid && exited === undefined) child.kill("SIGKILL");
  let tail = "";
  try {
    tail = readFileSync(join(dir, "redis.log"), "utf8").split("\n").slice(-5).join("\n");
  } catch {
    // no log
  }
  throw new AoError(
    CommonErrors.AO_ERR_REDIS_START_FAILED,
    `private redis-server in ${dir} did not answer PING${tail ? `; its log ends:\n${tail}` : ""}`,
  );
}

/** Version line of a redis-server binary, for `ao-broker status` and diagnostics. */
export function redisServerVersion(binary: string): string | undefined {
  const out = spawnSync(binary, ["--version"], { encoding: "utf8" });
  return out.status === 0 ? out.stdout.trim() : undefined;
}
