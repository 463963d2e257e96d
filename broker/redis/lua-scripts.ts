/**
 * Loads the project's Lua scripts (broker/redis/lua/<verbNoun>-<numKeys>.lua) and registers them
 * on an ioredis client with `defineCommand`, so calls go by EVALSHA with ioredis' automatic
 * fallback to EVAL after a SCRIPT FLUSH or a Redis restart.
 *
 * Scripts are read with `new URL("./lua/…", import.meta.url)`: from broker/redis/ in the source
 * tree, and from dist/lua/ next to the bundle (scripts/build.mjs copies them there). That is why
 * this file must stay in broker/redis/.
 *
 * Invariants:
 * - The key count is part of the file name and must match the KEYS[i] named in the header block
 *   (a test checks every file); a wrong count would silently shift KEYS into ARGV.
 * - `--- @include "_name"` pulls in lua/_name.lua once; files starting with "_" are includes only.
 * - Commands are named `ao:<name>:<version>` with the version a hash of the resolved source, so
 *   brokers of different versions sharing one Redis never run each other's scripts.
 * - Scripts return a negative integer for a failure; lua-errors.ts turns it into an AoError with
 *   the owning component's code.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Redis } from "ioredis";
import { luaError } from "./lua-errors.js";

export interface LuaScript {
  /** e.g. "admitBudget" */
  readonly name: string;
  readonly numberOfKeys: number;
  /** Source with includes resolved. */
  readonly lua: string;
  /** `ao:<name>:<version>`: the method defineCommand adds to the client. */
  readonly command: string;
}

const FILE_RE = /^([a-z][A-Za-z]*)-(\d+)\.lua$/;
const INCLUDE_RE = /^--- @include "(_[A-Za-z0-9-]+)"\s*$/gm;

function luaDir(): URL {
  return new URL("./lua/", import.meta.url);
}

/** Names of the script files (not includes) in the lua directory. */
export function listLuaScriptFiles(): string[] {
  return readdirSync(fileURLToPath(luaDir()))
    .filter((file) => FILE_RE.test(file))
    .sort();
}

function resolveIncludes(source: string, seen: Set<string>): string {
  return source.replace(INCLUDE_RE, (_line, include: string) => {
    if (seen.has(include)) return "";
    seen.add(include);
    const text = readFileSync(new URL(`./${include}.lua`, luaDir()), "utf8");
    return resolveIncludes(text, seen);
  });
}

/** Reads one script by file name, e.g. "admitBudget-5.lua". */
export function readLuaScript(file: string): LuaScript {
  const match = FILE_RE.exec(file);
  if (!match) throw new Error(`not a script file name (<verbNoun>-<numKeys>.lua): ${file}`);
  const source = readFileSync(new URL(`./${file}`, luaDir()), "utf8");
  const lua = resolveIncludes(source, new Set());
  const version = createHash("sha1").update(lua).digest("hex").slice(0, 10);
  const name = match[1]!;
  return { name, numberOfKeys: Number(match[2]), lua, command: `ao:${name}:${version}` };
}

/** The scripts a component uses, registered on its client. */
export class LuaScripts {
  readonly #client: Redis;
  readonly #failureCode: string;
  readonly #byName = new Map<string, LuaScript>();

  /** `failureCode`: the AoError code of the owning component for a script's failure reply. */
  constructor(client: Redis, files: readonly string[], failureCode: string) {
    this.#client = client;
    this.#failureCode = failureCode;
    for (const file of files) {
      const script = readLuaScript(file);
      client.defineCommand(script.command, { numberOfKeys: script.numberOfKeys, lua: script.lua });
      this.#byName.set(script.name, script);
    }
  }

  /** Runs a script; a negative integer reply becomes an AoError naming the script. */
  async run(name: string, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    const script = this.#byName.get(name);
    if (!script) throw new Error(`Lua script ${name} was not loaded`);
    if (keys.length !== script.numberOfKeys) {
      throw new Error(`Lua script ${name} takes ${script.numberOfKeys} keys, got ${keys.length}`);
    }
    const command = (this.#client as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[
      script.command
    ]!;
    const reply = await command.call(this.#client, ...keys, ...args.map(String));
    if (typeof reply === "number" && reply < 0) throw luaError(name, reply, this.#failureCode);
    return reply;
  }
}
