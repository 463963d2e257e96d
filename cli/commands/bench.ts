/**
 * `ao-broker bench`: the benchmark (bench/). Parses flags and hands them to bench's
 * runBenchCommand, which validates them, runs, prints the scorecard and writes --json/--svg.
 */
import type { Command } from "commander";
import { type BenchFlags, runBenchCommand } from "../../bench/index.js";

export function registerBenchCommand(program: Command): void {
  program
    .command("bench")
    .description("Sessions-to-budget: the direct, proxy and broker arms side by side on the same workload")
    .option("--quick", "finish in about 5 minutes on 2 cores (shorter windows, a wall-clock budget)")
    .option("--profile <name|file>", "workload: quiet, active or a JSON file (default active)")
    .option("--arms <list>", "arms to run, comma-separated: direct,proxy,broker (default all)")
    .option("--sessions <list|auto>", 'session counts, e.g. "5,20,80", or auto (search; default)')
    .option("--window-s <seconds>", "measured window of every step, simulated seconds")
    .option(
      "--warmup-s <seconds>",
      "warm-up before each measured window, simulated seconds (default 60 quick, 300 full)",
    )
    .option("--json <file>", "write the scorecard as JSON")
    .option("--svg <file>", "write the points-per-hour plot as SVG")
    .option("--real-gh", "also check the replay's cost against the real gh binary")
    .option("--target <url>", "run the quiet profile against a real GitHub API (needs --max-points)")
    .option("--token-env <var>", "with --target: environment variable holding the PAT (default GITHUB_TOKEN)")
    .option("--max-points <n>", "with --target: hard cap on points (and REST requests) the run may spend")
    .option("--repo <owner/name>", "with --target: the repository whose open PRs are polled")
    .option(
      "--broker-config <file>",
      "broker config overrides (JSON) for the broker arm, applied before time scaling",
    )
    .option(
      "--broker-process <mode>",
      "child (its own process, measured apart; default when built) or in-process",
    )
    .option("--enforce-limits", "let the simulator refuse past the prorated budget (default: measure demand)")
    .option(
      "--time-budget-s <seconds>",
      "stop searching when the run would take longer (default 275 with --quick)",
    )
    .option(
      "--requests-per-s <n>",
      "agent requests per wall second a step's compression aims at, 10 to 5000 (default 400; the same for quick and full)",
    )
    .option("--max-sessions <n>", "largest session count --sessions auto may try (default 1000)")
    .option(
      "--explain",
      "print the broker's per-answer breakdown: why each answer read upstream, and how many points re-fetched an identical answer",
    )
    .option(
      "--webhooks",
      "broker arm: the simulator delivers webhooks to the broker's gateway (they become its primary signal)",
    )
    .option("--no-progress", "no progress output on stderr")
    .action(async (flags: BenchFlags) => {
      await runBenchCommand(flags, { commandLine: `ao-broker ${process.argv.slice(2).join(" ")}` });
    });
}
