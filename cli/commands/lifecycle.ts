/**
 * `ao-broker lifecycle watch|unwatch|status`: ask the broker's lifecycle service to follow a
 * session's PR (found by branch when no number is given) and show what it knows.
 */
import type { Command } from "commander";
import { connectBroker } from "../../client/index.js";
import { formatLifecycleStatus, type LifecycleStatus } from "../../lifecycle/index.js";
import { printJson } from "../format.js";

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`expected a PR number, got "${value}"`);
  return n;
}

async function withClient<T>(
  socket: string | undefined,
  run: (client: Awaited<ReturnType<typeof connectBroker>>) => Promise<T>,
): Promise<T> {
  const client = await connectBroker({
    ...(socket ? { socketPath: socket } : {}),
    clientName: "ao-broker-cli",
  });
  try {
    return await run(client);
  } finally {
    await client.close();
  }
}

export function registerLifecycleCommand(program: Command): void {
  const lifecycle = program
    .command("lifecycle")
    .description("The broker's PR lifecycle service: batched polling, states, events");
  lifecycle
    .command("watch <session>")
    .description("Follow a session's PR (by branch until it exists)")
    .requiredOption("--repo <owner/name>", "repository")
    .requiredOption("--branch <branch>", "the session's head branch")
    .option("--pr <number>", "the PR number, when known", positiveInt)
    .option("--socket <path>", "IPC socket of the broker")
    .action(
      async (session: string, options: { repo: string; branch: string; pr?: number; socket?: string }) => {
        await withClient(options.socket, (client) =>
          client.watch({
            sessionId: session,
            repo: options.repo,
            branch: options.branch,
            ...(options.pr ? { pr: options.pr } : {}),
          }),
        );
        process.stdout.write(
          `watching ${session}: ${options.repo} ${options.branch}${options.pr ? ` #${options.pr}` : ""}\n`,
        );
      },
    );
  lifecycle
    .command("unwatch <session>")
    .description("Stop following a session")
    .option("--socket <path>", "IPC socket of the broker")
    .action(async (session: string, options: { socket?: string }) => {
      const result = await withClient(options.socket, (client) => client.unwatch(session));
      process.stdout.write(
        result.unwatched ? `stopped watching ${session}\n` : `${session} was not watched\n`,
      );
      if (!result.unwatched) process.exitCode = 1;
    });
  lifecycle
    .command("status")
    .description("Each watched session's state, PR, CI and review, and the last cycle")
    .option("--socket <path>", "IPC socket of the broker")
    .option("--json", "print JSON")
    .action(async (options: { socket?: string; json?: boolean }) => {
      const status = await withClient(options.socket, (client) => client.lifecycleStatus());
      if (options.json) return printJson(status);
      const full = status as unknown as LifecycleStatus;
      if (!full.totals) {
        process.stdout.write("the lifecycle service is not running on this broker\n");
        return;
      }
      process.stdout.write(formatLifecycleStatus(full));
    });
}
