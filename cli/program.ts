/**
 * The `ao-broker` command: parses flags, then calls the folders that do the work. Each subcommand
 * lives in cli/commands/<name>.ts and exports one `register…` function; this file only lists them.
 */
import { Command } from "commander";
import { registerBenchCommand } from "./commands/bench.js";
import { registerBrokerAdminCommands } from "./commands/broker-admin.js";
import { registerDoctorCommand } from "./commands/doctor.js";
import { registerLifecycleCommand } from "./commands/lifecycle.js";
import { registerRunCommand } from "./commands/run.js";
import { registerShimCommand } from "./commands/shim.js";
import { registerSimCommand } from "./commands/sim.js";
import { registerStartCommand } from "./commands/start.js";
import { registerTraceCommand } from "./commands/trace.js";
import { VERSION } from "./version.js";

export function buildProgram(): Command {
  const program = new Command("ao-broker")
    .description("One GitHub token for many coding-agent sessions: cache, coalesce, batch, budget, trace.")
    .version(VERSION)
    .showHelpAfterError("(run with --help for usage)")
    .configureHelp({ sortSubcommands: true });
  registerStartCommand(program);
  registerBrokerAdminCommands(program);
  registerTraceCommand(program);
  registerLifecycleCommand(program);
  registerSimCommand(program);
  registerBenchCommand(program);
  registerShimCommand(program);
  registerRunCommand(program);
  registerDoctorCommand(program);
  return program;
}
