/**
 * `ao-broker sim`: runs the GitHub simulator alone on 127.0.0.1, prints its URL and the
 * environment that points real gh at it, and serves until SIGINT/SIGTERM (then closes, exit 0).
 * Flags are validated here; a bad value is a usage error with a non-zero exit.
 */
import { type Command, InvalidArgumentError, Option } from "commander";
import { readScenarioFile, startSimulator } from "../../github-sim/index.js";

/** The CLI's fixed default port (the API defaults to an ephemeral one). */
export const DEFAULT_SIM_PORT = 3990;
const DEFAULT_TOKEN = "ghp_simulated";

function integer(min: number, max: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`expected a whole number, got "${value}"`);
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`expected ${min}..${max}, got ${n}`);
    return n;
  };
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError(`expected a number > 0, got "${value}"`);
  return n;
}

interface SimFlags {
  readonly port: number;
  readonly token: string;
  readonly scenario?: string;
  readonly prs: number;
  readonly latencyMs: number;
  readonly jitterMs: number;
  readonly graphqlLimit: number;
  readonly coreLimit: number;
  readonly searchLimit: number;
  readonly windowS: number;
  readonly webhookUrl?: string;
  readonly webhookSecret?: string;
}

export function registerSimCommand(program: Command): void {
  program
    .command("sim")
    .description("Run the GitHub simulator (REST + GraphQL on GitHub's schema and rate-limit arithmetic)")
    .addOption(
      new Option("--port <port>", "TCP port on 127.0.0.1 (0 = any free port)")
        .argParser(integer(0, 65535))
        .default(DEFAULT_SIM_PORT),
    )
    .addOption(new Option("--token <token>", "the PAT the simulator accepts").default(DEFAULT_TOKEN))
    .addOption(
      new Option("--scenario <file>", "scenario JSON file (docs/simulator.md); default: the built-in world"),
    )
    .addOption(
      new Option("--prs <n>", "add N generated open PRs with CI (#101.., branches gen/pr-<n>)")
        .argParser(integer(0, 10_000))
        .default(0),
    )
    .addOption(
      new Option("--latency-ms <ms>", "fixed latency per answer").argParser(integer(0, 600_000)).default(0),
    )
    .addOption(
      new Option("--jitter-ms <ms>", "extra random latency in [0, ms)")
        .argParser(integer(0, 600_000))
        .default(0),
    )
    .addOption(
      new Option("--graphql-limit <n>", "GraphQL points per window")
        .argParser(integer(0, 10_000_000))
        .default(5000),
    )
    .addOption(
      new Option("--core-limit <n>", "REST core requests per window")
        .argParser(integer(0, 10_000_000))
        .default(5000),
    )
    .addOption(
      new Option("--search-limit <n>", "search requests per window")
        .argParser(integer(0, 10_000_000))
        .default(30),
    )
    .addOption(
      new Option("--window-s <seconds>", "rate-limit window length").argParser(positiveNumber).default(3600),
    )
    .addOption(
      new Option(
        "--webhook-url <url>",
        "deliver webhooks like GitHub to this URL (e.g. the broker's http://127.0.0.1:PORT/webhooks/github)",
      ),
    )
    .addOption(
      new Option("--webhook-secret <secret>", "the webhooks' HMAC secret").env("AO_SIM_WEBHOOK_SECRET"),
    )
    .action(async (flags: SimFlags) => {
      if (flags.webhookUrl && !flags.webhookSecret)
        throw new InvalidArgumentError("--webhook-url needs --webhook-secret (or AO_SIM_WEBHOOK_SECRET)");
      const scenario = flags.scenario ? readScenarioFile(flags.scenario) : undefined;
      const sim = await startSimulator({
        port: flags.port,
        token: flags.token,
        ...(scenario ? { scenario } : {}),
        prs: flags.prs,
        latencyMs: flags.latencyMs,
        jitterMs: flags.jitterMs,
        limits: { graphql: flags.graphqlLimit, core: flags.coreLimit, search: flags.searchLimit },
        windowSeconds: flags.windowS,
        ...(flags.webhookUrl && flags.webhookSecret
          ? { webhooks: { url: flags.webhookUrl, secret: flags.webhookSecret } }
          : {}),
      });
      const repo = sim.world.repos.values().next().value?.fullName ?? "acme/widgets";
      const token = flags.token === DEFAULT_TOKEN ? DEFAULT_TOKEN : "<the --token value>";
      process.stdout.write(
        [
          `github-sim listening on ${sim.url}`,
          "Point real gh at it with:",
          `  export GH_HOST=github.localhost HTTP_PROXY=${sim.url} GH_TOKEN=${token} GH_REPO=github.localhost/${repo}`,
          `Stats: ${sim.url}/_sim/stats   (admin API: docs/simulator.md)`,
          "Press Ctrl-C to stop.",
          "",
        ].join("\n"),
      );
      await new Promise<void>((resolve) => {
        process.once("SIGINT", () => resolve());
        process.once("SIGTERM", () => resolve());
      });
      await sim.close();
      process.stdout.write("github-sim stopped\n");
    });
}
