/**
 * The real git the shim's git helper runs, resolved once at install time by the rules the helper
 * applies again when that file is gone or turns out to be a wrapper: the first executable `git` on
 * PATH that is not in the shim's directory, the helper's directory or any ~/.ao/bin, and is not a
 * script announcing itself as AO's git wrapper or this shim's helper. Recording it is what keeps
 * the helper from handing off to a wrapper that hands back (the loop of issue 14).
 */
import { realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { GIT_HELPER_MARKER } from "./core/shim-file.js";
import { findOnPath, readHead } from "./path-lookup.js";

/** Second-line marker of the git wrapper AO writes to ~/.ao/bin/git. */
export const AO_GIT_WRAPPER_MARKER = "# ao git wrapper";
/** How deep git-helper calls may nest before the helper calls it a loop and stops. */
export const GIT_HELPER_MAX_DEPTH = 6;

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** A script whose first lines name it AO's git wrapper or this shim's helper. */
export function isGitWrapperText(head: string | undefined): boolean {
  if (head === undefined || !head.startsWith("#!")) return false;
  const lines = head.split("\n", 3).slice(1);
  return lines.some((line) => line.startsWith(AO_GIT_WRAPPER_MARKER) || line.startsWith(GIT_HELPER_MARKER));
}

export interface ResolveRealGitOptions {
  readonly pathValue: string | undefined;
  /** Directories whose git is never the real one (the shim's, the helper's, ~/.ao/bin). */
  readonly skipDirs: readonly string[];
}

export function resolveRealGit(options: ResolveRealGitOptions): string | undefined {
  const skip = new Set(options.skipDirs.map(canonical));
  const isWrapper = (file: string) =>
    skip.has(canonical(join(file, ".."))) || isGitWrapperText(readHead(file, 512));
  return (
    findOnPath("git", options.pathValue, isWrapper) ??
    findOnPath("git", "/usr/bin:/bin:/usr/local/bin", isWrapper)
  );
}
