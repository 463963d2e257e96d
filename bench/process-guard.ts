/**
 * What a bench run started outside its own process — the private redis-server, each step's broker
 * process, and their directories — must not outlive it. Each is registered here while it runs; the CLI (runBenchCommand)
 * turns SIGINT and SIGTERM into stopping every registered one, by its own stop (redis SHUTDOWN, the
 * broker's SIGTERM) within a grace period and then SIGKILL by PID, before the process exits with
 * 128 + the signal's number. Without it, a bench killed with SIGTERM left its redis-server orphaned.
 * The library (runBench) only registers: tests keep their own signal handling.
 */

interface Guarded {
  readonly name: string;
  readonly pid: number | undefined;
  readonly stop: () => Promise<void>;
}

const running = new Set<Guarded>();

/** Registers a process to stop on SIGINT/SIGTERM; call the returned function once it is stopped. */
export function guardProcess(name: string, pid: number | undefined, stop: () => Promise<void>): () => void {
  const entry: Guarded = { name, pid, stop };
  running.add(entry);
  return () => {
    running.delete(entry);
  };
}

/** The PIDs registered now (tests, and the report of what a signal stopped). */
export function guardedPids(): number[] {
  return [...running].flatMap((g) => (g.pid ? [g.pid] : []));
}

function killHard(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Gone already.
  }
}

/** Stops every registered process: its own stop within `graceMs`, then SIGKILL. */
export async function stopGuarded(graceMs = 8000): Promise<void> {
  const all = [...running];
  running.clear();
  const timeout = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), graceMs).unref());
  // Processes first, then what holds no process (directories they may still write into).
  const processes = all.filter((g) => g.pid !== undefined);
  await Promise.race([Promise.allSettled(processes.map((g) => g.stop())), timeout]);
  for (const g of processes) if (g.pid) killHard(g.pid);
  await Promise.allSettled(all.filter((g) => g.pid === undefined).map((g) => g.stop()));
}

const SIGNAL_NUMBERS = { SIGINT: 2, SIGTERM: 15 } as const;

/**
 * Until the returned function is called: on SIGINT or SIGTERM, stop every registered process and
 * exit with 128 + the signal's number; a second signal kills them at once.
 */
export function stopOnSignals(
  log: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): () => void {
  let stopping = false;
  const handler = (signal: keyof typeof SIGNAL_NUMBERS) => {
    const code = 128 + SIGNAL_NUMBERS[signal];
    if (stopping) {
      for (const pid of guardedPids()) killHard(pid);
      process.exit(code);
    }
    stopping = true;
    const names = [...running].map((g) => g.name);
    log(`ao-broker bench: ${signal}: stopping ${names.length > 0 ? names.join(", ") : "nothing started"}`);
    void stopGuarded().finally(() => process.exit(code));
  };
  const onInt = () => handler("SIGINT");
  const onTerm = () => handler("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  return () => {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  };
}
