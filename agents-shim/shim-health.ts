/**
 * Is the shim still what agents run? AO rewrites `~/.ao/bin/gh` (and git) whenever its
 * `.ao-version` marker is absent or names another wrapper version — on a fresh machine after `shim
 * install`, and after every AO upgrade — and then agents' gh goes to GitHub directly with no
 * message. This reads the directory the way an agent's gh would meet it and says so plainly:
 * `ao-broker doctor` and `ao-broker status` print it, and fail on a problem.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { classifyGhFile, type ExistingGh } from "./core/shim-file.js";
import { AO_WRAPPER_NAME, defaultShimDir, HELPER_DIR_NAME } from "./install-shim.js";
import { findOnPath, readHead } from "./path-lookup.js";
import { isGitWrapperText } from "./real-git.js";
import { VERSION } from "./version.js";

export interface ShimHealth {
  readonly dir: string;
  readonly ok: boolean;
  /** The shim was installed here at some point (its helper directory exists). */
  readonly installed: boolean;
  /** What DIR/gh is now. */
  readonly gh: ExistingGh["kind"];
  readonly shimVersion: string | undefined;
  /** AO's `.ao-version` marker, when AO has written its wrappers here. */
  readonly aoWrapperVersion: string | undefined;
  readonly chainedAoWrapper: string | undefined;
  /** The git the git helper will run. */
  readonly realGit: string | undefined;
  /** Each a sentence saying what is wrong and what to run. */
  readonly problems: readonly string[];
  readonly notes: readonly string[];
}

export interface InspectShimHealthOptions {
  readonly dir?: string | undefined;
  readonly home?: string | undefined;
  /** The PATH AO's agents inherit (for where AO's own wrapper would find gh). @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
}

function read(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** A single-quoted assignment the installer baked into a script (`_aob_name='value'`). */
function baked(text: string | undefined, name: string): string | undefined {
  if (!text) return undefined;
  const match = new RegExp(`^${name}='((?:[^']|'\\\\'')*)'$`, "m").exec(text);
  return match?.[1]?.replace(/'\\''/g, "'");
}

export function inspectShimHealth(options: InspectShimHealthOptions = {}): ShimHealth {
  const env = options.env ?? process.env;
  const dir = resolve(options.dir ?? defaultShimDir(options.home));
  const ghPath = join(dir, "gh");
  const ghText = read(ghPath);
  const existing = classifyGhFile(ghText);
  const aoWrapperVersion = read(join(dir, ".ao-version"))?.trim() || undefined;
  const problems: string[] = [];
  const notes: string[] = [];
  const reinstall = "run `ao-broker shim install` (AO kept under `ao-broker run` is re-chained at once)";
  let realGit: string | undefined;
  let chained: string | undefined;

  if (existing.kind === "none") {
    problems.push(`${ghPath} does not exist: agents run the real gh, unbrokered; ${reinstall}`);
  } else if (existing.kind === "foreign") {
    problems.push(`${ghPath} is neither ao-broker's shim nor AO's wrapper: agents' gh is not brokered`);
  } else if (existing.kind === "ao-wrapper") {
    // AO's wrapper runs GH_PATH (AO sets /usr/local/bin/gh) or the first gh after its own
    // directory: only a shim there would still broker agents.
    const next =
      findOnPath("gh", "/usr/local/bin") ??
      findOnPath(
        "gh",
        (env.PATH ?? "")
          .split(":")
          .filter((entry) => resolve(entry) !== dir)
          .join(":"),
      );
    if (next && classifyGhFile(readHead(next)).kind === "shim") {
      notes.push(`${ghPath} is AO's wrapper; it runs ${next}, ao-broker's shim`);
    } else {
      problems.push(
        `${ghPath} is AO's wrapper again${aoWrapperVersion ? ` (AO wrapper version ${aoWrapperVersion})` : ""}: AO wrote its wrappers after the shim was installed, so agents' gh goes to GitHub directly, unbrokered and unaccounted; ${reinstall}`,
      );
    }
  } else {
    if (existing.version !== VERSION)
      problems.push(
        `${ghPath} is shim version ${existing.version ?? "?"}, this ao-broker installs ${VERSION}; run \`ao-broker shim install\``,
      );
    const node = baked(ghText, "_aob_node");
    const helper = baked(ghText, "_aob_helper");
    if (!node || !existsSync(node) || !helper || !existsSync(helper))
      problems.push(
        `the shim's helper (${node ?? "?"} ${helper ?? "?"}) is missing; run \`ao-broker shim install\``,
      );
    chained = baked(ghText, "_aob_chain") || undefined;
    if (chained && classifyGhFile(readHead(chained)).kind !== "ao-wrapper")
      problems.push(
        `the shim chains ${chained}, which is not AO's wrapper any more; run \`ao-broker shim install\``,
      );
    if (!chained && existsSync(join(dir, AO_WRAPPER_NAME)))
      notes.push(
        `${join(dir, AO_WRAPPER_NAME)} exists but is not chained; \`ao-broker shim install\` chains it`,
      );
    const gitHelper = join(dir, HELPER_DIR_NAME, "git");
    const gitText = read(gitHelper);
    if (!gitText || !isGitWrapperText(gitText)) {
      problems.push(`the shim's git helper ${gitHelper} is missing; run \`ao-broker shim install\``);
    } else {
      realGit = baked(gitText, "_aob_real") || undefined;
      if (!realGit || !existsSync(realGit) || isGitWrapperText(readHead(realGit, 512)))
        notes.push(
          `the git recorded at install (${realGit ?? "none"}) is gone or a wrapper: the git helper looks it up again each time; \`ao-broker shim install\` records it again`,
        );
    }
  }
  return {
    dir,
    ok: problems.length === 0,
    installed: existsSync(join(dir, HELPER_DIR_NAME)) || existing.kind === "shim",
    gh: existing.kind,
    shimVersion: existing.kind === "shim" ? existing.version : undefined,
    aoWrapperVersion,
    chainedAoWrapper: chained,
    realGit,
    problems,
    notes,
  };
}
