/**
 * `ao-broker run [--session ID] [--repo OWNER/NAME] -- <command> [args...]`: runs a command —
 * AO's `ao start` above all — with the gateway's environment for an orchestrator session, so every
 * gh it runs is brokered and attributed to that session whatever its PATH (AO's execGhObserved
 * removes ~/.ao/bin). While it runs, the shim is put back in front of AO's gh wrapper whenever AO
 * rewrites it. agents-shim/orchestrator-run.ts has the why of each variable.
 */
import { execFileSync } from "node:child_process";
import type { Command } from "commander";
import {
  DEFAULT_ORCHESTRATOR_SESSION,
  openOrchestrator,
  repoFromRemotes,
  runBrokered,
} from "../../agents-shim/index.js";
import { connectBroker } from "../../client/index.js";

function repoOfCwd(): string | undefined {
  try {
    return repoFromRemotes(execFileSync("git", ["remote", "-v"], { encoding: "utf8", stdio: "pipe" }));
  } catch {
    return undefined;
  }
}

export function registerRunCommand(program: Command): void {
  program
    .command("run")
    .description(
      "Run a command (e.g. `ao start`) with all its gh traffic brokered as an orchestrator session",
    )
    .argument("<command...>", "the command and its arguments (after --)")
    .option("--session <id>", `the orchestrator's session (default ${DEFAULT_ORCHESTRATOR_SESSION})`)
    .option("--repo <owner/name>", "the session's repository (default: this checkout's origin)")
    .option("--project <id>", "AO project id recorded on the session")
    .option("--shim-dir <dir>", "where the agents' shim is (default ~/.ao/bin)")
    .option("--no-guard", "do not put the shim back when AO rewrites ~/.ao/bin/gh")
    .option("--socket <path>", "IPC socket of the broker")
    .action(
      async (
        command: string[],
        options: {
          session?: string;
          repo?: string;
          project?: string;
          shimDir?: string;
          guard: boolean;
          socket?: string;
        },
      ) => {
        const repo = options.repo ?? repoOfCwd();
        if (!repo)
          throw new Error(
            "ao-broker run: no --repo given and this directory has no GitHub remote to take it from",
          );
        const client = await connectBroker({
          ...(options.socket ? { socketPath: options.socket } : {}),
          clientName: "ao-broker-run",
        });
        let opened: Awaited<ReturnType<typeof openOrchestrator>>;
        try {
          opened = await openOrchestrator(client, {
            sessionId: options.session,
            repo,
            projectId: options.project,
          });
        } finally {
          await client.close();
        }
        const [file, ...args] = command as [string, ...string[]];
        process.stderr.write(
          `ao-broker run: ${file} brokered as session ${opened.sessionId} (gateway ${opened.env.HTTP_PROXY})\n`,
        );
        process.exitCode = await runBrokered({
          command: file,
          args,
          env: { ...process.env, ...opened.env },
          shimDir: options.shimDir,
          guard: options.guard,
          onRechain: (report) =>
            process.stderr.write(
              `ao-broker run: AO rewrote ${report.shimPath}; the shim is back in front of it (AO's wrapper chained as ${report.chainedAoWrapper ?? "-"})\n`,
            ),
        });
      },
    );
}
