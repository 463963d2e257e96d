/**
 * `ao-broker shim`: install, inspect and remove the gh shim agents find first on PATH
 * (agents-shim/). `install` and `uninstall` change files; `env` shows what the installed shim
 * would do for a gh command. The helper commands the shim itself runs (session, auth-status,
 * notice, flush) are here too, hidden from help: the installed script calls the faster
 * dist/shim-helper.js, and these are the same code for debugging by hand.
 */
import type { Command } from "commander";
import {
  AO_WRAPPER_NAME,
  defaultShimDir,
  describeShim,
  type InstallReport,
  installShim,
  parseFallback,
  runHelper,
  uninstallShim,
} from "../../agents-shim/index.js";
import { printJson } from "../format.js";

function fallbackOption(value: string): "fail" | "direct" {
  const parsed = parseFallback(value);
  if (!parsed) throw new Error(`--fallback must be "fail" or "direct", got "${value}"`);
  return parsed;
}

function describeInstall(r: InstallReport): string {
  const verb =
    r.action === "unchanged"
      ? "already installed, unchanged"
      : r.action === "updated"
        ? `updated${r.previousVersion ? ` from version ${r.previousVersion}` : ""}`
        : "installed";
  const lines = [
    `ao-broker shim: ${verb}: ${r.shimPath} (version ${r.version})`,
    `  git helper    ${r.gitHelperPath}`,
    `  real gh       ${r.realGh ?? "none found on PATH after the shim (set AO_BROKER_GH)"}`,
    `  broker down   ${r.fallback === "fail" ? "gh stops with a message" : "gh talks to GitHub directly, with a warning"} (AO_BROKER_FALLBACK=fail|direct overrides)`,
  ];
  if (r.chainedAoWrapper)
    lines.push(
      `  AO wrapper    kept as ${r.chainedAoWrapper}; gh runs through it, so AO still records \`gh pr create\``,
    );
  if (r.backup) lines.push(`  moved aside   the previous gh is now ${r.backup}`);
  if (!r.onPath) {
    lines.push(
      `note: ${r.dir} is not on this shell's PATH. AO puts ~/.ao/bin first on every agent's PATH; anywhere else, add it first: export PATH="${r.dir}:$PATH"`,
    );
  } else if (r.shadowedBy) {
    lines.push(`note: ${r.shadowedBy} comes before ${r.dir} on PATH, so \`gh\` still runs that one here`);
  }
  return lines.join("\n");
}

export function registerShimCommand(program: Command): void {
  const shim = program
    .command("shim")
    .description("The gh shim agents find first on PATH: install it, see what it does, remove it");

  shim
    .command("install")
    .description(`Write DIR/gh, the shim (default ${defaultShimDir().replace(/^.*\/\.ao\//, "~/.ao/")})`)
    .option("--dir <dir>", "where to install gh (AO puts ~/.ao/bin first on agents' PATH)")
    .option(
      "--force",
      "replace a DIR/gh that is neither this shim nor AO's wrapper (kept as gh.before-ao-broker)",
    )
    .option("--fallback <policy>", 'when the broker is down: "fail" (default) or "direct"', fallbackOption)
    .option("--json", "print JSON")
    .action((options: { dir?: string; force?: boolean; fallback?: "fail" | "direct"; json?: boolean }) => {
      const report = installShim({ dir: options.dir, force: options.force, fallback: options.fallback });
      if (options.json) return printJson(report);
      process.stdout.write(`${describeInstall(report)}\n`);
    });

  shim
    .command("uninstall")
    .description(`Remove DIR/gh and put AO's wrapper back if it was chained (${AO_WRAPPER_NAME})`)
    .option("--dir <dir>", "where the shim is (default ~/.ao/bin)")
    .option("--json", "print JSON")
    .action((options: { dir?: string; json?: boolean }) => {
      const report = uninstallShim({ dir: options.dir });
      if (options.json) return printJson(report);
      process.stdout.write(
        `ao-broker shim: removed ${report.dir}/gh${report.restoredAoWrapper ? `; AO's wrapper is back at ${report.restoredAoWrapper}` : ""}\n`,
      );
    });

  shim
    .command("env")
    .description("Show what the installed shim would do for a gh command (runs nothing but the shim)")
    .argument("[gh-args...]", "the gh command (default: pr view)")
    .option("--dir <dir>", "where the shim is (default ~/.ao/bin)")
    .option("--json", "print JSON")
    .action(async (args: string[], options: { dir?: string; json?: boolean }) => {
      const described = await describeShim({ dir: options.dir, args: args.length > 0 ? args : undefined });
      if (options.json) return printJson(described);
      process.stdout.write(
        `${described.shimPath} (version ${described.version ?? "?"})\n${described.fields.map(([k, v]) => `  ${k.padEnd(12)} ${v}`).join("\n")}\n`,
      );
      if (described.stderr) process.stderr.write(described.stderr);
      if (described.exitCode !== 0) process.exitCode = described.exitCode ?? 1;
    });

  for (const name of ["session", "auth-status", "notice", "flush"]) {
    shim
      .command(name, { hidden: true })
      .description(`the shim's helper: ${name}`)
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(async (_options: unknown, command: Command) => {
        process.exitCode = await runHelper([name, ...command.args]);
      });
  }
}
