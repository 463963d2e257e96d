/**
 * The commands that talk to a running broker over its IPC socket: stop, status, sessions, budget,
 * session open|close. Each connects, makes one or two calls, prints (or prints JSON), and exits.
 */
import type { Command } from "commander";
import { inspectShimHealth } from "../../agents-shim/index.js";
import {
  type BrokerClient,
  type BudgetSecondary,
  connectBroker,
  type SecondaryCount,
} from "../../client/index.js";
import { formatDuration, formatNumber, printJson, table } from "../format.js";
import { shimHealthLines } from "./doctor.js";

interface SocketOption {
  socket?: string;
}

async function withClient<T>(options: SocketOption, run: (client: BrokerClient) => Promise<T>): Promise<T> {
  const client = await connectBroker({
    ...(options.socket ? { socketPath: options.socket } : {}),
    clientName: "ao-broker-cli",
  });
  try {
    return await run(client);
  } finally {
    await client.close();
  }
}

function parsePositive(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n <= 1000)) throw new Error(`expected a number in (0, 1000], got "${value}"`);
  return n;
}

export function registerBrokerAdminCommands(program: Command): void {
  program
    .command("stop")
    .description("Ask the running broker to drain in-flight requests and exit")
    .option("--socket <path>", "IPC socket of the broker")
    .action(async (options: SocketOption) => {
      await withClient(options, (client) => client.shutdown());
      process.stdout.write("ao-broker: stopping (draining in-flight requests)\n");
    });

  program
    .command("status")
    .description("Show the running broker: addresses, Redis, upstream, sessions")
    .option("--socket <path>", "IPC socket of the broker")
    .option("--json", "print JSON")
    .action(async (options: SocketOption & { json?: boolean }) => {
      const status = await withClient(options, (client) => client.status());
      // Agents' gh must still be the shim: AO rewrites ~/.ao/bin/gh on a fresh machine and on upgrades.
      const shim = inspectShimHealth();
      if (shim.installed && !shim.ok) process.exitCode = 1;
      if (options.json) return printJson({ ...status, shim });
      const s = status as unknown as Record<string, unknown>;
      const lines = [
        `ao-broker ${String(s.version)} (pid ${String(s.pid)}, up ${formatDuration(Number(s.uptimeSeconds ?? 0) * 1000)})`,
        `gateway   ${String(s.gatewayUrl)}`,
        `socket    ${String(s.socket)}`,
      ];
      const redis = s.redis as { url?: string; source?: string } | undefined;
      if (redis) lines.push(`redis     ${redis.url ?? "?"} (${redis.source ?? "?"})`);
      const identity = s.identity as { login?: string } | undefined;
      if (identity?.login)
        lines.push(
          `identity  ${identity.login} (namespace ${String((redis as { namespace?: string })?.namespace)})`,
        );
      // broker.status sends the upstream as its URL and `simulated` beside it (ipc/start-ipc.ts).
      if (typeof s.upstream === "string")
        lines.push(`upstream  ${s.upstream}${s.simulated === true ? " (embedded simulator)" : ""}`);
      if (s.sessions !== undefined) lines.push(`sessions  ${String(s.sessions)}`);
      if (shim.installed) lines.push(...shimHealthLines(shim).map((line) => `shim      ${line}`));
      else lines.push(`shim      not installed in ${shim.dir} (\`ao-broker shim install\`)`);
      if (s.degraded === true)
        lines.push(
          "state     degraded: Redis unreachable (local budget, direct upstream, IPC writes refused)",
        );
      process.stdout.write(`${lines.join("\n")}\n`);
    });

  program
    .command("sessions")
    .description("Per-session spend, cache hits, coalesced/batched answers and queue wait")
    .option("--socket <path>", "IPC socket of the broker")
    .option("--json", "print JSON")
    .action(async (options: SocketOption & { json?: boolean }) => {
      const result = await withClient(options, (client) => client.listSessions());
      if (options.json) return printJson(result);
      if (result.sessions.length === 0) {
        process.stdout.write("no sessions\n");
        return;
      }
      const rows = result.sessions.map((s) => [
        s.id,
        s.repo,
        formatNumber(s.stats.graphqlPoints),
        formatNumber(s.stats.restRequests),
        s.stats.requests,
        s.stats.upstreamRequests,
        s.stats.cacheHits,
        s.stats.coalesced,
        s.stats.batched,
        `${s.stats.queueWaitMsP50}/${s.stats.queueWaitMsP95}`,
        s.stats.invocations,
        s.stats.recentCommands[0]
          ? `${s.stats.recentCommands[0].command} (${s.stats.recentCommands[0].cost})`
          : "-",
      ]);
      process.stdout.write(
        `${table(["SESSION", "REPO", "GQL PTS", "REST", "REQS", "UPSTREAM", "HITS", "COALESCED", "BATCHED", "WAIT p50/p95 ms", "INVOCATIONS", "LAST COMMAND (cost)"], rows)}\n`,
      );
    });

  program
    .command("budget")
    .description("Global budget per resource, what is reserved, and the projection to the window's end")
    .option("--socket <path>", "IPC socket of the broker")
    .option("--json", "print JSON")
    .action(async (options: SocketOption & { json?: boolean }) => {
      const result = await withClient(options, (client) => client.budget());
      if (options.json) return printJson(result);
      const now = Date.now();
      const rows = Object.entries(result.resources).map(([name, r]) => [
        name,
        formatNumber(r.limit),
        formatNumber(r.used),
        formatNumber(r.remaining),
        formatNumber(r.reserved),
        formatNumber(Math.round(r.projectedAtReset)),
        `${r.resetAt} (in ${formatDuration(Date.parse(r.resetAt) - now)})`,
      ]);
      process.stdout.write(
        `${table(["RESOURCE", "LIMIT", "USED", "REMAINING", "RESERVED", "PROJECTED AT RESET", "RESETS"], rows)}\n`,
      );
      if (result.sessions.length > 0) {
        const sessionRows = result.sessions.map((s) => [
          s.id,
          `${(s.share * 100).toFixed(1)}%`,
          Object.entries(s.spent)
            .map(([k, v]) => `${k}=${formatNumber(v)}`)
            .join(" ") || "-",
        ]);
        process.stdout.write(`\n${table(["SESSION", "FAIR SHARE", "SPENT THIS WINDOW"], sessionRows)}\n`);
      }
      if (result.secondary) process.stdout.write(`\n${secondaryTable(result.secondary)}\n`);
      if (result.waiting && result.waiting.length > 0) {
        const waitRows = result.waiting.map((w) => [
          w.sessionId,
          w.limit,
          w.endpoint || "-",
          `${formatDuration(Math.max(0, now - Date.parse(w.since)))}`,
          `${formatDuration(Math.max(0, Date.parse(w.until) - now))}`,
        ]);
        process.stdout.write(
          `\n${table(["WAITING SESSION", "FOR LIMIT", "ENDPOINT / RESOURCE", "WAITED", "GOES IN"], waitRows)}\n`,
        );
      } else if (result.waiting) process.stdout.write("\nno session waits for a limit\n");
    });

  const session = program.command("session").description("Open or close an agent session");
  session
    .command("open <id>")
    .description("Open a session and print its token and the environment an agent needs")
    .requiredOption("--repo <owner/name>", "the repository the session works on")
    .option("--weight <w>", "fair-share weight (default 1)", parsePositive)
    .option("--read-only", "the session's tokens cannot write")
    .option("--project <id>", "AO project id")
    .option("--issue <id>", "AO issue id")
    .option("--socket <path>", "IPC socket of the broker")
    .option("--json", "print JSON: {session, token, env}")
    .action(
      async (
        id: string,
        options: SocketOption & {
          repo: string;
          weight?: number;
          readOnly?: boolean;
          project?: string;
          issue?: string;
          json?: boolean;
        },
      ) => {
        const result = await withClient(options, (client) =>
          client.openSession({
            id,
            repo: options.repo,
            ...(options.weight !== undefined ? { weight: options.weight } : {}),
            ...(options.readOnly ? { readOnly: true } : {}),
            ...(options.project ? { projectId: options.project } : {}),
            ...(options.issue ? { issueId: options.issue } : {}),
          }),
        );
        if (options.json) return printJson(result);
        process.stdout.write(
          `# session ${result.session.id} on ${result.session.repo}${result.session.readOnly ? " (read-only)" : ""}\n`,
        );
        for (const [name, value] of Object.entries(result.env))
          process.stdout.write(`export ${name}=${shellQuote(value)}\n`);
      },
    );
  session
    .command("close <id>")
    .description("Close a session and revoke all its tokens")
    .option("--socket <path>", "IPC socket of the broker")
    .option("--json", "print JSON")
    .action(async (id: string, options: SocketOption & { json?: boolean }) => {
      const result = await withClient(options, (client) => client.closeSession(id));
      if (options.json) return printJson(result);
      process.stdout.write(
        result.closed
          ? `closed ${id}: ${result.revokedTokens} token(s) revoked\n`
          : `no open session "${id}"\n`,
      );
      if (!result.closed) process.exitCode = 1;
    });
}

function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]*$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}

/** GitHub's secondary limits as the broker paces them: count, the broker's pace, GitHub's limit. */
function secondaryTable(secondary: BudgetSecondary): string {
  const minute =
    secondary.minuteMs === 60_000 ? "minute" : `minute (${secondary.minuteMs / 1000}s, compressed)`;
  const row = (name: string, c: SecondaryCount) => [
    name,
    formatNumber(c.used),
    formatNumber(c.limit),
    formatNumber(c.githubLimit),
  ];
  const rows = [
    row(`content creation this ${minute}`, secondary.contentCreation.minute),
    row("content creation this hour", secondary.contentCreation.hour),
    row(`GraphQL points this ${minute}`, secondary.graphqlPoints),
    ...secondary.endpoints.map((e) => row(`REST ${e.endpoint} this ${minute}`, e)),
    row("requests in flight", secondary.concurrency),
  ];
  const pause = secondary.pausedUntil ? `\nGitHub asked for a pause until ${secondary.pausedUntil}` : "";
  return `${table(["SECONDARY LIMIT", "USED", "PACED TO", "GITHUB"], rows)}${pause}`;
}
