/**
 * The one place where a Lua script's failure (a negative integer reply, as BullMQ's scripts do)
 * becomes an AoError. The broker's own TypeScript validates arguments before calling a script, so
 * these signal a bug or a corrupted key, never bad user input. The AoError code belongs to the
 * component that runs the script (AO_ERR_BUDGET_SCRIPT_FAILED, AO_ERR_UPSTREAM_SCRIPT_FAILED);
 * `data.failure` says which failure it was.
 */
import { AoError } from "../../common/index.js";

/** Failure replies shared by every script. */
export const LUA_FAILURES: Readonly<Record<number, { readonly failure: string; readonly message: string }>> =
  {
    [-1]: { failure: "bad-argument", message: "was called with an invalid argument" },
  };

export function luaError(script: string, reply: number, code: string): AoError {
  const known = LUA_FAILURES[reply];
  return new AoError(code, `Lua script ${script} ${known?.message ?? `failed with code ${reply}`}`, {
    httpStatus: 500,
    data: { script, reply, failure: known?.failure ?? "unknown" },
  });
}
