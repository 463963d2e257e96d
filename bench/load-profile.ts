/**
 * Profiles by name (`quiet`, `active`: bundled JSON, so they work from dist/ too) or from a FILE;
 * validated once (core/profile-schema.ts), with every problem named in the error.
 */
import { readFileSync } from "node:fs";
import { AoError } from "../common/index.js";
import { type Profile, parseProfile } from "./core/profile-schema.js";
import { BenchErrors } from "./errors.js";
import active from "./profiles/active.json" with { type: "json" };
import quiet from "./profiles/quiet.json" with { type: "json" };

export const BUILTIN_PROFILES: Readonly<Record<string, unknown>> = { quiet, active };

export function loadProfile(nameOrFile: string): Profile {
  let input: unknown = BUILTIN_PROFILES[nameOrFile];
  let source = `built-in profile "${nameOrFile}"`;
  if (input === undefined) {
    source = `profile file ${nameOrFile}`;
    let text: string;
    try {
      text = readFileSync(nameOrFile, "utf8");
    } catch (error) {
      throw new AoError(
        BenchErrors.AO_ERR_BENCH_PROFILE_INVALID,
        `--profile ${nameOrFile}: not a built-in profile (${Object.keys(BUILTIN_PROFILES).join(", ")}) and not a readable file`,
        { cause: error },
      );
    }
    try {
      input = JSON.parse(text);
    } catch (error) {
      throw new AoError(
        BenchErrors.AO_ERR_BENCH_PROFILE_INVALID,
        `${source} is not JSON: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
  const parsed = parseProfile(input);
  if (!parsed.ok)
    throw new AoError(BenchErrors.AO_ERR_BENCH_PROFILE_INVALID, `${source} is invalid:\n${parsed.message}`);
  return parsed.profile;
}
