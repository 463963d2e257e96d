/**
 * Entry point of dist/shim-helper.js, the small bundle the installed shell shim runs with node on
 * its slow paths. Kept apart from dist/cli.js so that it loads only the IPC client, not every
 * command of the CLI (measured in docs/decisions/0003-shim-form.md).
 */
import { runHelper } from "./run-helper.js";

process.exitCode = await runHelper(process.argv.slice(2));
