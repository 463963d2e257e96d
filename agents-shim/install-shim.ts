/**
 * `ao-broker shim install`: writes DIR/gh (the shell shim) and DIR/.ao-broker-shim/git (the git
 * helper gh gets on its PATH), atomically (temp file + rename, so a gh starting meanwhile sees the
 * old or the new file, never half of one). Idempotent: an identical shim is left alone, an older
 * one replaced. AO's own wrapper at DIR/gh is kept as DIR/gh.ao-wrapper and chained to (AO records
 * `gh pr create` through it); any other file is refused unless `force`, and then kept as
 * DIR/gh.before-ao-broker. The report says what happened and whether agents will find the shim.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { AoError } from "../common/index.js";
import { DEFAULT_FALLBACK, type FallbackPolicy } from "./core/fallback-policy.js";
import { renderTemplate } from "./core/render-template.js";
import { classifyGhFile } from "./core/shim-file.js";
import { ShimErrors } from "./errors.js";
import { findOnPath, inspectPath, readHead } from "./path-lookup.js";
import { GIT_HELPER_MAX_DEPTH, resolveRealGit } from "./real-git.js";
import { locateShimAssets } from "./shim-assets.js";
import { VERSION } from "./version.js";

export const AO_WRAPPER_NAME = "gh.ao-wrapper";
export const FOREIGN_BACKUP_NAME = "gh.before-ao-broker";
export const HELPER_DIR_NAME = ".ao-broker-shim";

export interface InstallShimOptions {
  /** Where gh goes. @defaultValue ~/.ao/bin (AO puts it first on every agent's PATH) */
  readonly dir?: string | undefined;
  /** Replace a DIR/gh that is neither this shim nor AO's wrapper (it is kept as gh.before-ao-broker). @defaultValue false */
  readonly force?: boolean | undefined;
  /** What the shim does when the broker is down, unless AO_BROKER_FALLBACK says otherwise. @defaultValue "fail" */
  readonly fallback?: FallbackPolicy | undefined;
  /** The node binary the shim runs its helper with. @defaultValue process.execPath */
  readonly nodePath?: string | undefined;
  /** @defaultValue dist/shim-helper.js, found by locateShimAssets() */
  readonly helperPath?: string | undefined;
  /** Directory holding gh.sh and git.sh. @defaultValue found by locateShimAssets() */
  readonly templateDir?: string | undefined;
  /** For the PATH checks and the awk lookup. @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** @defaultValue os.homedir() */
  readonly home?: string | undefined;
}

export type InstallAction = "installed" | "updated" | "unchanged";

export interface InstallReport {
  readonly dir: string;
  readonly shimPath: string;
  readonly gitHelperPath: string;
  readonly version: string;
  readonly action: InstallAction;
  /** The version of the shim that was replaced, when one was. */
  readonly previousVersion: string | undefined;
  /** AO's wrapper the shim runs gh through (DIR/gh.ao-wrapper), when there is one. */
  readonly chainedAoWrapper: string | undefined;
  /** Where a foreign DIR/gh was moved with --force. */
  readonly backup: string | undefined;
  readonly fallback: FallbackPolicy;
  readonly onPath: boolean;
  readonly shadowedBy: string | undefined;
  readonly realGh: string | undefined;
  /** The git the git helper runs (re-checked by the helper each time), when one was found. */
  readonly realGit: string | undefined;
}

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

function writeAtomically(file: string, content: string, mode: number): void {
  const temp = `${file}.tmp-${process.pid}-${Date.now()}`;
  writeFileSync(temp, content, { mode });
  renameSync(temp, file);
}

export function defaultShimDir(home: string = homedir()): string {
  return join(home, ".ao", "bin");
}

export function installShim(options: InstallShimOptions = {}): InstallReport {
  const env = options.env ?? process.env;
  const dir = resolve(options.dir ?? defaultShimDir(options.home));
  const assets = locateShimAssets({ templateDir: options.templateDir, helperPath: options.helperPath });
  const fallback = options.fallback ?? DEFAULT_FALLBACK;
  const shimPath = join(dir, "gh");
  const helperDir = join(dir, HELPER_DIR_NAME);
  const gitHelperPath = join(helperDir, "git");
  const aoWrapper = join(dir, AO_WRAPPER_NAME);
  mkdirSync(helperDir, { recursive: true, mode: 0o755 });

  const existing = classifyGhFile(readHead(shimPath));
  const existingText = existing.kind === "shim" ? readIfExists(shimPath) : undefined;
  let backup: string | undefined;
  if (existing.kind === "ao-wrapper") {
    renameSync(shimPath, aoWrapper);
  } else if (existing.kind === "foreign") {
    if (!options.force) {
      throw new AoError(
        ShimErrors.AO_ERR_SHIM_FOREIGN_GH,
        `${shimPath} exists and is neither ao-broker's shim nor AO's gh wrapper; not replacing it (--force moves it to ${FOREIGN_BACKUP_NAME})`,
      );
    }
    backup = join(dir, FOREIGN_BACKUP_NAME);
    renameSync(shimPath, backup);
  }
  const chained = classifyGhFile(readHead(aoWrapper)).kind === "ao-wrapper" ? aoWrapper : undefined;

  const awk =
    findOnPath("mawk", env.PATH) ??
    findOnPath("awk", env.PATH) ??
    findOnPath("awk", "/usr/bin:/bin") ??
    "awk";
  const values = {
    VERSION,
    NODE: options.nodePath ?? process.execPath,
    HELPER: resolve(assets.helperPath),
    GIT_DIR: helperDir,
    AWK: awk,
    FALLBACK: fallback,
    CHAIN: chained ?? "",
  };
  const shimText = renderTemplate(readFileSync(join(assets.templateDir, "gh.sh"), "utf8"), values);
  const home = options.home ?? env.HOME ?? homedir();
  const realGit = resolveRealGit({
    pathValue: env.PATH,
    skipDirs: [dir, helperDir, join(home, ".ao", "bin")],
  });
  const gitText = renderTemplate(readFileSync(join(assets.templateDir, "git.sh"), "utf8"), {
    VERSION,
    REAL_GIT: realGit ?? "",
    SHIM_DIR: dir,
    GIT_DIR: helperDir,
    GIT_MAX_DEPTH: String(GIT_HELPER_MAX_DEPTH),
  });

  let action: InstallAction;
  if (existing.kind === "shim" && existingText === shimText) action = "unchanged";
  else action = existing.kind === "shim" ? "updated" : "installed";
  if (action !== "unchanged") writeAtomically(shimPath, shimText, 0o755);
  if (readIfExists(gitHelperPath) !== gitText) writeAtomically(gitHelperPath, gitText, 0o755);

  const path = inspectPath(dir, env);
  return {
    dir,
    shimPath,
    gitHelperPath,
    version: VERSION,
    action,
    previousVersion: existing.kind === "shim" ? existing.version : undefined,
    chainedAoWrapper: chained,
    backup,
    fallback,
    onPath: path.onPath,
    shadowedBy: path.shadowedBy,
    realGh: path.realGh,
    realGit,
  };
}

export interface UninstallReport {
  readonly dir: string;
  readonly removed: boolean;
  /** AO's wrapper, put back at DIR/gh. */
  readonly restoredAoWrapper: string | undefined;
}

/** Removes the shim and its git helper; puts AO's wrapper back at DIR/gh when it was chained. */
export function uninstallShim(
  options: { dir?: string | undefined; home?: string | undefined } = {},
): UninstallReport {
  const dir = resolve(options.dir ?? defaultShimDir(options.home));
  const shimPath = join(dir, "gh");
  const existing = classifyGhFile(readHead(shimPath));
  if (existing.kind !== "shim") {
    throw new AoError(
      ShimErrors.AO_ERR_SHIM_NOT_INSTALLED,
      `${shimPath} is not ao-broker's shim; nothing removed`,
    );
  }
  rmSync(shimPath, { force: true });
  rmSync(join(dir, HELPER_DIR_NAME), { recursive: true, force: true });
  const aoWrapper = join(dir, AO_WRAPPER_NAME);
  let restored: string | undefined;
  if (existsSync(aoWrapper) && classifyGhFile(readHead(aoWrapper)).kind === "ao-wrapper") {
    renameSync(aoWrapper, shimPath);
    restored = shimPath;
  }
  return { dir, removed: true, restoredAoWrapper: restored };
}
