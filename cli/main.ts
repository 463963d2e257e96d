import { runCli } from "./run-cli.js";

const code = await runCli(process.argv.slice(2));
// Long-running subcommands (start, sim) resolve only when they have shut down.
process.exitCode = code;
