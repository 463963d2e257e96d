/**
 * `ao-broker shim env`: what the installed shim would do for a gh command, without running gh. It
 * runs DIR/gh itself with AO_BROKER_SHIM_DRY_RUN=1, so the answer comes from the same shell code
 * agents run (the session it picks, the real gh, the rewritten arguments, gh's GH_HOST, HTTP_PROXY
 * and GH_REPO, and the token's shape — never its value). A session that is not cached yet is
 * registered on the way, as a real gh command would.
 */
import { execFile } from "node:child_process";
import { join, resolve } from "node:path";
import { AoError } from "../common/index.js";
import { classifyGhFile } from "./core/shim-file.js";
import { ShimErrors } from "./errors.js";
import { defaultShimDir } from "./install-shim.js";
import { readHead } from "./path-lookup.js";

export interface DescribeShimOptions {
  readonly dir?: string | undefined;
  readonly home?: string | undefined;
  /** The gh arguments to describe. @defaultValue ["pr", "view"] */
  readonly args?: readonly string[] | undefined;
  /** @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  readonly cwd?: string | undefined;
}

export interface ShimDescription {
  readonly shimPath: string;
  readonly version: string | undefined;
  readonly exitCode: number | null;
  /** `name=value` lines the shim printed (gh=, arg=, invocation=, GH_HOST=, HTTP_PROXY=, GH_REPO=, GH_TOKEN=). */
  readonly fields: readonly (readonly [string, string])[];
  readonly stderr: string;
}

export function describeShim(options: DescribeShimOptions = {}): Promise<ShimDescription> {
  const shimPath = join(resolve(options.dir ?? defaultShimDir(options.home)), "gh");
  const kind = classifyGhFile(readHead(shimPath));
  if (kind.kind !== "shim") {
    return Promise.reject(
      new AoError(
        ShimErrors.AO_ERR_SHIM_NOT_INSTALLED,
        `${shimPath} is not ao-broker's shim (run \`ao-broker shim install\`)`,
      ),
    );
  }
  const env = { ...(options.env ?? process.env), AO_BROKER_SHIM_DRY_RUN: "1" };
  return new Promise((done) => {
    execFile(
      shimPath,
      [...(options.args ?? ["pr", "view"])],
      { env, cwd: options.cwd, timeout: 30_000 },
      (error, stdout, stderr) => {
        const fields = stdout
          .split("\n")
          .filter((line) => line.includes("="))
          .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)] as const);
        done({
          shimPath,
          version: kind.version,
          exitCode: error ? (typeof error.code === "number" ? error.code : null) : 0,
          fields,
          stderr,
        });
      },
    );
  });
}
