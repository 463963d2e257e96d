/**
 * `ao-broker doctor`: says plainly whether every GitHub call of an AO set-up goes through the
 * broker — agents' gh is the shim (AO has not rewritten ~/.ao/bin/gh since), the broker answers,
 * and each running AO orchestrator runs under `ao-broker run`. Exit 1 on any failure.
 */
import type { Command } from "commander";
import { findAoProcesses, inspectShimHealth, type ShimHealth } from "../../agents-shim/index.js";
import { connectBroker } from "../../client/index.js";
import { printJson } from "../format.js";

export function shimHealthLines(health: ShimHealth): string[] {
  const lines: string[] = [];
  if (health.ok)
    lines.push(
      `ok    agents' gh: ${health.dir}/gh is ao-broker's shim${health.shimVersion ? ` ${health.shimVersion}` : ""}${health.chainedAoWrapper ? `, AO's wrapper chained (${health.chainedAoWrapper})` : ""}`,
    );
  for (const problem of health.problems) lines.push(`FAIL  agents' gh: ${problem}`);
  for (const note of health.notes) lines.push(`note  ${note}`);
  return lines;
}

export function registerDoctorCommand(program: Command): void {
  program
    .command("doctor")
    .description("Check that agents' gh and AO's own gh calls all go through the broker")
    .option("--dir <dir>", "where the shim is (default ~/.ao/bin)")
    .option("--socket <path>", "IPC socket of the broker")
    .option("--json", "print JSON")
    .action(async (options: { dir?: string; socket?: string; json?: boolean }) => {
      const shim = inspectShimHealth({ dir: options.dir });
      let broker: { ok: boolean; detail: string; sessions: string[] };
      try {
        const client = await connectBroker({
          ...(options.socket ? { socketPath: options.socket } : {}),
          clientName: "ao-broker-doctor",
        });
        try {
          const status = (await client.status()) as unknown as { gatewayUrl?: string; version?: string };
          const list = await client.listSessions();
          broker = {
            ok: true,
            detail: `broker ${status.version ?? "?"} answers, gateway ${status.gatewayUrl ?? "?"}`,
            sessions: list.sessions.map((s) => s.id),
          };
        } finally {
          await client.close();
        }
      } catch (error) {
        broker = { ok: false, detail: (error as Error).message, sessions: [] };
      }
      const processes = findAoProcesses();
      const unbrokered = (processes ?? []).filter((p) => !p.runSession);
      const ok = shim.ok && broker.ok && unbrokered.length === 0;
      if (options.json) {
        printJson({ ok, shim, broker, aoProcesses: processes ?? null });
      } else {
        const lines = shimHealthLines(shim);
        lines.push(broker.ok ? `ok    ${broker.detail}` : `FAIL  broker: ${broker.detail}`);
        if (processes === undefined) lines.push("note  AO processes: unknown (no /proc)");
        else if (processes.length === 0) lines.push("note  AO orchestrator: not running");
        for (const p of processes ?? [])
          lines.push(
            p.runSession
              ? `ok    AO orchestrator pid ${p.pid} runs under \`ao-broker run\` (session ${p.runSession})`
              : `FAIL  AO orchestrator pid ${p.pid} (${p.command}) is not brokered: its own gh calls skip ~/.ao/bin and spend the token unaccounted; start it as \`ao-broker run -- ao start\``,
          );
        process.stdout.write(`${lines.join("\n")}\n`);
      }
      if (!ok) process.exitCode = 1;
    });
}
