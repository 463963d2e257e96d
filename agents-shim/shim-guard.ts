/**
 * Keeps the shim in front of AO's gh wrapper while AO runs. AO writes its wrappers over
 * `~/.ao/bin/gh` (each file by temp file + rename) whenever its `.ao-version` marker is absent or
 * differs — a fresh machine, an AO upgrade — just before it starts an agent. The guard watches the
 * directory (fs.watch, with a poll as a backstop for file systems that miss events) and, the moment
 * DIR/gh is AO's wrapper again, installs the shim again: AO's new wrapper becomes
 * DIR/gh.ao-wrapper and is chained, exactly as `ao-broker shim install` does by hand.
 * `ao-broker run` runs one for as long as its command runs.
 */
import { type FSWatcher, watch } from "node:fs";
import { join, resolve } from "node:path";
import { classifyGhFile } from "./core/shim-file.js";
import { defaultShimDir, type InstallReport, type InstallShimOptions, installShim } from "./install-shim.js";
import { readHead } from "./path-lookup.js";

export interface ShimGuardOptions extends InstallShimOptions {
  /** Backstop poll. @defaultValue 1000 ms */
  readonly intervalMs?: number | undefined;
  readonly onRechain?: ((report: InstallReport) => void) | undefined;
  readonly onError?: ((error: unknown) => void) | undefined;
}

export interface ShimGuard {
  /** Re-chains now if AO's wrapper replaced the shim; the install report when it did. */
  check(): InstallReport | undefined;
  /** How many times the guard put the shim back. */
  rechains(): number;
  close(): void;
}

export function guardShim(options: ShimGuardOptions = {}): ShimGuard {
  const dir = resolve(options.dir ?? defaultShimDir(options.home));
  const ghPath = join(dir, "gh");
  let count = 0;
  let closed = false;
  const check = (): InstallReport | undefined => {
    if (closed) return undefined;
    if (classifyGhFile(readHead(ghPath)).kind !== "ao-wrapper") return undefined;
    try {
      const report = installShim({ ...options, dir });
      count += 1;
      options.onRechain?.(report);
      return report;
    } catch (error) {
      options.onError?.(error);
      return undefined;
    }
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dir, { persistent: false }, (_event, name) => {
      if (name === null || name === "gh" || String(name).startsWith("gh")) check();
    });
    watcher.on("error", () => {});
  } catch {
    watcher = undefined; // no such directory yet, or no inotify: the poll still runs
  }
  const timer = setInterval(check, options.intervalMs ?? 1000);
  timer.unref();
  check();
  return {
    check,
    rechains: () => count,
    close: () => {
      closed = true;
      clearInterval(timer);
      watcher?.close();
    },
  };
}
