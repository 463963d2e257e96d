/**
 * A bench stopped with SIGTERM (or Ctrl-C) stops what it started: its private redis-server and the
 * step's broker process are gone when it exits, instead of left orphaned. The built CLI runs as a
 * user runs it; the processes it started are found as its descendants in /proc.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CLI } from "../../support/cli-process.js";

interface Proc {
  readonly pid: number;
  readonly ppid: number;
  readonly state: string;
  readonly cmdline: string;
}

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const after = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ");
      out.push({ pid: Number(name), state: after[0] ?? "", ppid: Number(after[1]), cmdline });
    } catch {
      // Exited while we looked.
    }
  }
  return out;
}

function descendants(root: number): Proc[] {
  const all = processes();
  const found: Proc[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift();
    for (const p of all)
      if (p.ppid === parent) {
        found.push(p);
        queue.push(p.pid);
      }
  }
  return found;
}

/** Alive: listed in /proc and not a zombie waiting for its reaper. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] !== "Z";
  } catch {
    return false;
  }
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("ao-broker bench on SIGTERM", () => {
  it("stops its redis-server and broker process, by PID, before it exits", async () => {
    const child = spawn(
      process.execPath,
      [
        CLI,
        "bench",
        "--arms",
        "broker",
        "--sessions",
        "3",
        "--window-s",
        "600",
        "--warmup-s",
        "600",
        "--no-progress",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once("exit", (code, signal) => resolve({ code, signal })),
    );
    const pid = child.pid as number;
    let started: Proc[] = [];
    try {
      // The step is running once the broker process is up beside the redis-server.
      started = await until(
        "the bench's redis-server and broker process",
        () => {
          const found = descendants(pid);
          const redis = found.find((p) => p.cmdline.includes("redis-server"));
          const broker = found.find((p) => p.cmdline.includes(" start --config "));
          return redis && broker ? found : undefined;
        },
        25_000,
      );
      expect(started.every((p) => alive(p.pid))).toBe(true);
      child.kill("SIGTERM");
      const { code } = await exited;
      // Reparented children may take a moment to be reaped; none may still run.
      await until(
        "every process the bench started to be gone",
        () => (started.every((p) => !alive(p.pid)) ? true : undefined),
        5_000,
      ).catch(() => undefined);
      const left = started.filter((p) => alive(p.pid)).map((p) => `${p.pid} ${p.cmdline}`);
      expect(left).toEqual([]);
      // Nor its private redis-server's directory (the socket names it).
      const redis = started.find((p) => p.cmdline.includes("redis-server"));
      const dir = /unixsocket:(\S+)\/redis\.sock/.exec(redis?.cmdline ?? "")?.[1];
      expect(dir, "the redis-server's socket directory").toBeDefined();
      expect(existsSync(dir as string)).toBe(false);
      // Nor the step's state directory (the broker's --config file is in it).
      const broker = started.find((p) => p.cmdline.includes(" start --config "));
      const config = / start --config (\S+)/.exec(broker?.cmdline ?? "")?.[1];
      expect(config, "the broker's config file").toBeDefined();
      expect(existsSync(config as string)).toBe(false);
      expect(code, stderr).toBe(143);
      expect(stderr).toMatch(/SIGTERM: stopping/);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      // Whatever the bench left (reparented, so no longer its descendants), by the PIDs seen.
      for (const p of [...started, ...descendants(pid)]) if (alive(p.pid)) process.kill(p.pid, "SIGKILL");
    }
  }, 60_000);
});
