/**
 * A private redis-server per test file, started through the broker's own embedded-default code
 * (broker/redis/embedded-redis.ts) on a Unix socket in a temp dir, never touching the machine's
 * Redis on 6379. Keys get a random prefix so tests sharing one server cannot see each other.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EmbeddedRedis, startEmbeddedRedis } from "../../broker/index.js";

export interface TestRedis {
  readonly url: string;
  readonly server: EmbeddedRedis;
  readonly dir: string;
  /** A fresh key prefix, unique per call. */
  prefix(): string;
  stop(): Promise<void>;
}

export async function startTestRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), "aob-redis-"));
  const server = await startEmbeddedRedis({ dir, detached: false, persist: false });
  return {
    url: server.url,
    server,
    dir,
    prefix: () => `t${randomUUID().slice(0, 8)}`,
    stop: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
