import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  createRedisClient,
  pingRedis,
  redisOptionsFromUrl,
  resolveRedis,
  startEmbeddedRedis,
} from "../../../broker/index.js";
import { isAoError } from "../../../common/index.js";

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "aob-embedded-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("embedded redis", () => {
  it("starts a private server on a 0700 Unix socket that answers commands, and stops it", async () => {
    const dir = tempDir();
    const server = await startEmbeddedRedis({ dir, detached: false, persist: false });
    expect(server.reused).toBe(false);
    expect(statSync(server.socketPath).mode & 0o777).toBe(0o700);
    const client = createRedisClient(server.url);
    await client.set("k", "v");
    expect(await client.get("k")).toBe("v");
    client.disconnect();
    await server.stop();
    expect(existsSync(server.socketPath)).toBe(false);
    expect(await pingRedis({ path: server.socketPath })).toBe(false);
  });

  it("reuses a server left running by an earlier broker, keeping its data", async () => {
    const dir = tempDir();
    const first = await startEmbeddedRedis({ dir, detached: false, persist: true });
    const client = createRedisClient(first.url);
    await client.set("session:s1", "alive");
    client.disconnect();
    const second = await startEmbeddedRedis({ dir, detached: false, persist: true });
    expect(second.reused).toBe(true);
    expect(second.pid).toBe(first.pid);
    const again = createRedisClient(second.url);
    expect(await again.get("session:s1")).toBe("alive");
    again.disconnect();
    await second.stop();
  });

  it("fails with a message that says how to get a Redis when no redis-server exists", async () => {
    const error = await startEmbeddedRedis({ dir: tempDir(), binary: "/nonexistent/redis-server" }).catch(
      (e) => e,
    );
    expect(isAoError(error, "AO_ERR_REDIS_UNAVAILABLE")).toBe(true);
    expect(String(error.message)).toMatch(/apt-get install -y redis-server/);
    expect(String(error.message)).toMatch(/REDIS_URL/);
  });

  it("prefers an explicit URL and never starts a server for it", async () => {
    const resolved = await resolveRedis({ url: "redis://10.255.255.1:6390", stateDir: tempDir() });
    expect(resolved).toEqual({ url: "redis://10.255.255.1:6390", source: "explicit" });
  });

  it("starts the embedded default when told not to probe 127.0.0.1:6379", async () => {
    const stateDir = tempDir();
    const resolved = await resolveRedis({ stateDir, probeLocal: false });
    expect(resolved.source).toBe("embedded");
    expect(resolved.url).toBe(`unix://${join(stateDir, "redis", "redis.sock")}`);
    await resolved.embedded?.stop();
  });
});

describe("redisOptionsFromUrl", () => {
  it.each([
    { name: "unix socket", url: "unix:///tmp/x.sock", expected: { path: "/tmp/x.sock" } },
    { name: "tcp with db", url: "redis://h:6380/2", expected: { host: "h", port: 6380, db: 2 } },
    { name: "password", url: "redis://:p%40ss@h", expected: { host: "h", port: 6379, password: "p@ss" } },
  ])("parses $name", ({ url, expected }) => {
    expect(redisOptionsFromUrl(url)).toEqual(expected);
  });

  it("rejects other schemes with a config error", () => {
    expect(() => redisOptionsFromUrl("http://x")).toThrow(/unsupported scheme/);
  });
});
