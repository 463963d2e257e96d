/**
 * Runs the program and turns every failure into one clear line on stderr and a non-zero exit:
 * AoErrors print their message and code; commander's own usage errors keep commander's text.
 */
import { CommanderError } from "commander";
import { isAoError } from "../common/index.js";
import { buildProgram } from "./program.js";

export async function runCli(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  program.exitOverride();
  try {
    await program.parseAsync(argv as string[], { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and version "errors" are successes; usage errors were already printed by commander.
      return error.exitCode;
    }
    if (isAoError(error)) {
      process.stderr.write(`ao-broker: ${error.message} (${error.code})\n`);
      return 1;
    }
    process.stderr.write(`ao-broker: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
