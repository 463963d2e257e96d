/**
 * Where the installer finds what it installs. Built (dist/cli.js): the shell templates are in
 * dist/agents-shim/ (scripts/build.mjs copies them) and the helper is dist/shim-helper.js. From
 * source (tests through tsx): agents-shim/template/ and the repository's dist/shim-helper.js.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AoError } from "../common/index.js";
import { ShimErrors } from "./errors.js";

export interface ShimAssets {
  /** Directory holding gh.sh and git.sh. */
  readonly templateDir: string;
  /** The helper bundle the installed shim runs with node on its slow paths. */
  readonly helperPath: string;
}

export interface LocateShimAssetsOptions {
  /** The directory of the running module. @defaultValue this module's directory */
  readonly from?: string | undefined;
  readonly templateDir?: string | undefined;
  readonly helperPath?: string | undefined;
}

export function locateShimAssets(options: LocateShimAssetsOptions = {}): ShimAssets {
  const here = options.from ?? dirname(fileURLToPath(import.meta.url));
  const templateDir =
    options.templateDir ??
    [join(here, "agents-shim"), join(here, "template"), join(here, "..", "agents-shim", "template")].find(
      (dir) => existsSync(join(dir, "gh.sh")),
    );
  const helperPath =
    options.helperPath ??
    [join(here, "shim-helper.js"), join(here, "..", "dist", "shim-helper.js")].find((file) =>
      existsSync(file),
    );
  if (!templateDir || !existsSync(join(templateDir, "gh.sh")) || !existsSync(join(templateDir, "git.sh"))) {
    throw new AoError(
      ShimErrors.AO_ERR_SHIM_ASSETS_MISSING,
      `the shim's shell templates (gh.sh, git.sh) were not found near ${here}: run \`npm run build\``,
    );
  }
  if (!helperPath || !existsSync(helperPath)) {
    throw new AoError(
      ShimErrors.AO_ERR_SHIM_ASSETS_MISSING,
      `the shim's helper (shim-helper.js) was not found near ${here}: run \`npm run build\``,
    );
  }
  return { templateDir, helperPath };
}
