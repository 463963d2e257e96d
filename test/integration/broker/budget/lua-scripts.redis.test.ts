import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisClient } from "../../../../broker/redis/index.js";
import { LuaScripts, listLuaScriptFiles, readLuaScript } from "../../../../broker/redis/lua-scripts.js";
import { isAoError } from "../../../../common/index.js";
import { startTestRedis, type TestRedis } from "../../../support/redis.js";

const dir = new URL("../../../../broker/redis/lua/", import.meta.url);

function headerKeys(source: string): number[] {
  const header = /^--\[\[([\s\S]*?)\]\]/.exec(source)?.[1] ?? "";
  return [...new Set([...header.matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1])))].sort((a, b) => a - b);
}

describe("Lua scripts", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  const files = listLuaScriptFiles();

  it("finds every script file and only script files", () => {
    const all = readdirSync(dir).filter((f) => f.endsWith(".lua"));
    const includes = all.filter((f) => f.startsWith("_"));
    expect(files.length).toBeGreaterThanOrEqual(7);
    expect([...files, ...includes].sort()).toEqual(all.sort());
  });

  it.each(files)("%s names exactly the keys its file name counts, as KEYS[1..n]", (file) => {
    const source = readFileSync(new URL(file, dir), "utf8");
    const script = readLuaScript(file);
    const keys = headerKeys(source);
    expect(keys).toEqual(Array.from({ length: script.numberOfKeys }, (_, i) => i + 1));
    expect(source).toMatch(/ARGV\[1[\].]/);
    expect(source).toMatch(/Output:/);
  });

  it.each(files)("%s compiles in a real redis-server with its includes resolved", async (file) => {
    const script = readLuaScript(file);
    expect(script.lua).not.toMatch(/^--- @include/m);
    expect(script.command).toMatch(/^ao:[a-z][A-Za-z]+:[0-9a-f]{10}$/);
    const client = createRedisClient(redis.url);
    try {
      const sha = await client.script("LOAD", script.lua);
      expect(sha).toMatch(/^[0-9a-f]{40}$/);
    } finally {
      client.disconnect();
    }
  });

  describe("when a script reports a failure", () => {
    it("becomes an AoError naming the script", async () => {
      const client = createRedisClient(redis.url);
      try {
        const scripts = new LuaScripts(client, ["holdUntil-1.lua"], "AO_ERR_UPSTREAM_SCRIPT_FAILED");
        const err = await scripts
          .run("holdUntil", [`${redis.prefix()}:k`], [0, "not-a-number"])
          .catch((e) => e);
        expect(isAoError(err, "AO_ERR_UPSTREAM_SCRIPT_FAILED")).toBe(true);
        expect((err as { data: unknown }).data).toEqual({
          script: "holdUntil",
          reply: -1,
          failure: "bad-argument",
        });
        expect((err as Error).message).toContain("holdUntil");
        await expect(scripts.run("holdUntil", [], [0, 1])).rejects.toThrow(/takes 1 keys/);
      } finally {
        client.disconnect();
      }
    });
  });
});
