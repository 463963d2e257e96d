/**
 * `ao-broker trace report`: who burned the budget — points and requests by session, by command, by
 * cache result, and over time — from the broker's own call records (the p:calls stream).
 */
import type { Command } from "commander";
import { connectBroker } from "../../client/index.js";
import { parseDuration, renderTraceReport, type TraceReport } from "../../otel/index.js";
import { printJson } from "../format.js";

export function registerTraceCommand(program: Command): void {
  const trace = program.command("trace").description("Reports from the broker's record of every call");
  trace
    .command("report")
    .description("Points and requests by session, by command, by cache result, and over time")
    .option("--since <duration>", "only calls in the last DURATION (e.g. 15m, 2h, 1d)")
    .option("--top <n>", "rows per breakdown", (v) => Number.parseInt(v, 10))
    .option("--socket <path>", "IPC socket of the broker")
    .option("--json", "print JSON")
    .action(async (options: { since?: string; top?: number; socket?: string; json?: boolean }) => {
      if (options.since) parseDuration(options.since);
      const client = await connectBroker({
        ...(options.socket ? { socketPath: options.socket } : {}),
        clientName: "ao-broker-cli",
      });
      try {
        const report = (await client.callUnchecked("trace.report", {
          ...(options.since ? { since: options.since } : {}),
          ...(options.top ? { top: options.top } : {}),
        })) as TraceReport;
        if (options.json) printJson(report);
        else process.stdout.write(`${renderTraceReport(report)}\n`);
      } finally {
        await client.close();
      }
    });
}
