/**
 * Which of this user's running processes are AO's orchestrator, and does each run under
 * `ao-broker run` (AO_BROKER_RUN_SESSION in its environment)? Read from /proc (Linux; elsewhere the
 * answer is "unknown"): an orchestrator outside `ao-broker run` spends the token unaccounted,
 * because AO's own gh calls skip `~/.ao/bin`. `ao-broker doctor` reports each one.
 */
import { readdirSync, readFileSync } from "node:fs";

export interface AoProcess {
  readonly pid: number;
  readonly command: string;
  /** The session `ao-broker run` opened for it, when it runs under one. */
  readonly runSession: string | undefined;
}

/** An AO orchestrator's argv: `ao start|status|dashboard|spawn…` or anything of @composio/ao's. */
export function looksLikeAo(argv: readonly string[]): boolean {
  const joined = argv.join(" ");
  if (/@composio\/ao|agent-orchestrator/.test(joined) && !/ao-broker/.test(joined)) return true;
  const index = argv.findIndex((arg) => /(^|\/)ao$/.test(arg));
  return index >= 0 && /^(start|status|dashboard|spawn|session|lifecycle)$/.test(argv[index + 1] ?? "");
}

export function findAoProcesses(procRoot = "/proc"): AoProcess[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync(procRoot);
  } catch {
    return undefined;
  }
  const found: AoProcess[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const argv = readFileSync(`${procRoot}/${entry}/cmdline`, "utf8").split("\0").filter(Boolean);
      if (!looksLikeAo(argv)) continue;
      const environ = readFileSync(`${procRoot}/${entry}/environ`, "utf8").split("\0");
      const run = environ.find((line) => line.startsWith("AO_BROKER_RUN_SESSION="));
      found.push({ pid: Number(entry), command: argv.join(" ").slice(0, 200), runSession: run?.slice(22) });
    } catch {
      // gone, or another user's
    }
  }
  return found;
}
