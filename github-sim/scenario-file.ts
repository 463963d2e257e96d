/**
 * Reads a scenario from a JSON file (the CLI's `--scenario FILE`), with errors that name the file.
 */
import { readFileSync } from "node:fs";
import { AoError } from "../common/index.js";
import type { ParsedScenario } from "./core/scenario-schema.js";
import { SimErrors } from "./errors.js";
import { parseScenarioOrThrow } from "./options.js";

export function readScenarioFile(path: string): ParsedScenario {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new AoError(
      SimErrors.AO_ERR_SIM_SCENARIO_UNREADABLE,
      `cannot read scenario file ${path}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new AoError(
      SimErrors.AO_ERR_SIM_SCENARIO_UNREADABLE,
      `scenario file ${path} is not valid JSON: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return parseScenarioOrThrow(json, `scenario file ${path}`);
}
