export { buildProgram } from "./program.js";
export { runCli } from "./run-cli.js";
export { VERSION } from "./version.js";
