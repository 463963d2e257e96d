/**
 * A process-count watchdog for tests that can recurse (a wrapper chain that finds itself again
 * starts processes without end). Every process the test starts carries a tag in its environment;
 * the watchdog counts the live processes with that tag (their /proc/<pid>/environ, readable for
 * the same user) every few milliseconds, remembers the peak, and as soon as the count passes the
 * limit SIGKILLs every tagged process — only processes the test started carry the tag — and marks
 * itself tripped. A recursion then fails the test, never the machine.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";

export interface ProcessWatchdog {
  /** Put into the environment of every process the test starts. */
  readonly env: Readonly<Record<string, string>>;
  /** The most tagged processes seen alive at once. */
  peak(): number;
  /** The limit was passed (and the tagged processes were killed). */
  tripped(): boolean;
  /** Tagged processes alive now. */
  alive(): number[];
  stop(): void;
}

const TAG_VARIABLE = "AOB_TEST_WATCHDOG_TAG";

function taggedPids(needle: Buffer): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`).includes(needle)) pids.push(Number(entry));
    } catch {
      // gone, or another user's process
    }
  }
  return pids;
}

export function startProcessWatchdog(options: { limit: number; intervalMs?: number }): ProcessWatchdog {
  const tag = randomBytes(8).toString("hex");
  const needle = Buffer.from(`${TAG_VARIABLE}=${tag}\0`);
  let peak = 0;
  let tripped = false;
  const check = () => {
    const pids = taggedPids(needle);
    peak = Math.max(peak, pids.length);
    if (pids.length > options.limit) {
      tripped = true;
      for (const pid of pids) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
  };
  const timer = setInterval(check, options.intervalMs ?? 25);
  return {
    env: { [TAG_VARIABLE]: tag },
    peak: () => peak,
    tripped: () => tripped,
    alive: () => taggedPids(needle),
    stop: () => {
      clearInterval(timer);
      for (const pid of taggedPids(needle)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    },
  };
}
