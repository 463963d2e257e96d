/**
 * The one place where a Lua script's failure (a negative integer reply, as BullMQ's scripts do)
 * becomes an AoError. The broker's own TypeScript validates arguments before calling a script, so
 * these signal a bug or a corrupted key, never bad user input.
 */
import { AoError } from "../../common/index.js";

export const LuaErrors = {
  /** A Lua script was called with an argument it cannot use (a bug in the caller). */
  AO_ERR_LUA_BAD_ARGUMENT: "AO_ERR_LUA_BAD_ARGUMENT",
  /** A Lua script returned a failure code this broker does not know (version skew or a bug). */
  AO_ERR_LUA_FAILED: "AO_ERR_LUA_FAILED",
} as const;
export type LuaErrorCode = keyof typeof LuaErrors;

const MESSAGES: Readonly<Record<number, { code: LuaErrorCode; message: string }>> = {
  [-1]: { code: LuaErrors.AO_ERR_LUA_BAD_ARGUMENT, message: "was called with an invalid argument" },
};

export function luaError(script: string, reply: number): AoError<LuaErrorCode> {
  const known = MESSAGES[reply];
  return new AoError(
    known?.code ?? LuaErrors.AO_ERR_LUA_FAILED,
    `Lua script ${script} ${known?.message ?? `failed with code ${reply}`}`,
    { httpStatus: 500, data: { script, reply } },
  );
}
