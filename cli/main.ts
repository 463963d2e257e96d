import { runCli } from "./run-cli.js";

const code = await runCli(process.argv.slice(2));
// Long-running subcommands (start, sim) resolve only when they have shut down.
process.exitCode = code;
// The command is done. Something still open (a Redis client retrying a Redis that went away under
// the broker) must not keep the process alive after it, or SIGTERM would not end the daemon.
setTimeout(() => {
  process.stderr.write("ao-broker: done, but handles are still open after 2 s; exiting anyway\n");
  process.exit(code);
}, 2_000).unref();
