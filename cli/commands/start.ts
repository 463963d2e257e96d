/**
 * `ao-broker start`: runs the daemon in the foreground until SIGINT/SIGTERM (or `ao-broker stop`),
 * then drains in-flight requests and exits 0. Prints where it listens and how to point an agent at it.
 */
import type { Command } from "commander";
import { startBroker } from "../../broker/index.js";
import { startSimulator } from "../../github-sim/index.js";

interface StartFlags {
  config?: string;
  upstream?: string;
  listen?: string;
  socket?: string;
  redis?: string;
  simulate?: boolean;
}

export function registerStartCommand(program: Command): void {
  program
    .command("start")
    .description("Run the broker: own the token, serve the gateway and the IPC socket until SIGINT/SIGTERM")
    .option("--config <file>", "JSON config file (see docs/config.md)")
    .option("--upstream <url>", "GitHub API base URL (default https://api.github.com)")
    .option("--listen <host:port>", "gateway listener (default 127.0.0.1:7878)")
    .option("--socket <path>", "IPC socket (default $AO_BROKER_SOCKET or ~/.ao-broker/broker.sock)")
    .option(
      "--redis <url>",
      "redis://, rediss:// or unix:// (default: REDIS_URL, 127.0.0.1:6379, else a private redis-server)",
    )
    .option("--simulate", "use an embedded GitHub simulator as upstream (no token needed)")
    .action(async (flags: StartFlags) => {
      const overrides: Record<string, unknown> = {};
      if (flags.upstream) overrides.upstream = { url: flags.upstream };
      if (flags.listen) overrides.listen = flags.listen;
      if (flags.socket) overrides.socket = flags.socket;
      if (flags.redis) overrides.redis = { url: flags.redis };
      if (flags.simulate) overrides.simulate = true;
      // With --simulate (or `simulate` in the config) the broker asks for its upstream here: the
      // simulator is the CLI's to start, so the daemon itself never imports github-sim/.
      const broker = await startBroker({
        file: flags.config,
        overrides,
        startSimulator: () => startSimulator({ port: 0 }),
      });
      const lines = [
        `ao-broker listening`,
        `  gateway   ${broker.gatewayUrl}`,
        `  socket    ${broker.socketPath}`,
        `  redis     ${broker.redis.url} (${broker.redis.source})`,
        `  upstream  ${broker.upstreamUrl}${broker.simulated ? " (embedded simulator)" : ""}`,
        `open a session: ao-broker session open <id> --repo OWNER/NAME${flags.socket ? ` --socket ${flags.socket}` : ""}`,
      ];
      process.stdout.write(`${lines.join("\n")}\n`);
      const onSignal = (signal: NodeJS.Signals) => {
        process.stderr.write(`ao-broker: ${signal} received, draining in-flight requests\n`);
        void broker.close();
      };
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
      await broker.stopped;
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      // Stopped. Something still open (a Redis client retrying a Redis that went away under the
      // broker) must not keep the daemon alive after it, or SIGTERM would not end it.
      setTimeout(() => {
        process.stderr.write("ao-broker: stopped, but handles are still open after 2 s; exiting\n");
        process.exit(process.exitCode ?? 0);
      }, 2_000).unref();
    });
}
