/**
 * PATH questions the installer answers for its report, the same way the shell answers them: is a
 * directory on PATH, which `gh` comes before it, and which real gh the shim would run (the first
 * `gh` after the shim's directory that is neither this shim nor AO's wrapper).
 */
import { accessSync, closeSync, constants, openSync, readSync, realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { classifyGhFile } from "./core/shim-file.js";

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function sameFile(a: string, b: string): boolean {
  try {
    const sa = statSync(a);
    const sb = statSync(b);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false;
  }
}

function canonical(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

/** Reads only the head of a file: a real gh is a 40 MB binary. */
export function readHead(file: string, bytes = 4096): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const buffer = Buffer.alloc(bytes);
    return buffer.subarray(0, readSync(fd, buffer, 0, bytes, 0)).toString("utf8");
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function kindOf(file: string): string {
  return classifyGhFile(readHead(file) ?? "").kind;
}

export function pathEntries(pathValue: string | undefined): string[] {
  return (pathValue ?? "").split(":").filter((entry) => entry.length > 0);
}

/** The first executable `name` on PATH, optionally skipping some files. */
export function findOnPath(
  name: string,
  pathValue: string | undefined,
  skip: (file: string) => boolean = () => false,
): string | undefined {
  for (const dir of pathEntries(pathValue)) {
    const file = join(dir, name);
    if (isExecutableFile(file) && !skip(file)) return file;
  }
  return undefined;
}

export interface PathReport {
  /** The directory appears on PATH. */
  readonly onPath: boolean;
  /** A gh that comes before the directory on PATH, so agents would not reach the shim. */
  readonly shadowedBy: string | undefined;
  /** The gh the shim would run. */
  readonly realGh: string | undefined;
}

export function inspectPath(dir: string, env: Readonly<Record<string, string | undefined>>): PathReport {
  const target = canonical(dir);
  const shim = join(dir, "gh");
  const entries = pathEntries(env.PATH);
  const index = entries.findIndex((entry) => canonical(entry) === target);
  let shadowedBy: string | undefined;
  if (index > 0) {
    for (const entry of entries.slice(0, index)) {
      const file = join(entry, "gh");
      if (isExecutableFile(file) && !sameFile(file, shim)) {
        shadowedBy = file;
        break;
      }
    }
  }
  const isReal = (file: string) => !sameFile(file, shim) && kindOf(file) === "foreign";
  let realGh = env.AO_BROKER_GH || undefined;
  if (!realGh) {
    const after = index >= 0 ? entries.slice(index + 1) : entries;
    realGh =
      after.map((entry) => join(entry, "gh")).find((file) => isExecutableFile(file) && isReal(file)) ??
      entries.map((entry) => join(entry, "gh")).find((file) => isExecutableFile(file) && isReal(file));
  }
  return { onPath: index >= 0, shadowedBy, realGh };
}
