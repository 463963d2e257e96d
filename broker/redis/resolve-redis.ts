/**
 * Where the broker's Redis is, in DESIGN.md's order: an explicit URL (--redis, REDIS_URL, config);
 * else a Redis answering on 127.0.0.1:6379; else a private redis-server under the state directory.
 */
import { join } from "node:path";
import { type EmbeddedRedis, pingRedis, startEmbeddedRedis } from "./embedded-redis.js";

export interface ResolveRedisOptions {
  readonly url?: string | undefined;
  /** The broker's state directory; the private server lives in `<stateDir>/redis`. */
  readonly stateDir: string;
  /** Probe 127.0.0.1:6379 before starting a private server. @defaultValue true */
  readonly probeLocal?: boolean;
}

export interface ResolvedRedis {
  readonly url: string;
  readonly source: "explicit" | "local" | "embedded";
  readonly embedded?: EmbeddedRedis;
}

export async function resolveRedis(options: ResolveRedisOptions): Promise<ResolvedRedis> {
  if (options.url) return { url: options.url, source: "explicit" };
  if ((options.probeLocal ?? true) && (await pingRedis({ host: "127.0.0.1", port: 6379 }, 300))) {
    return { url: "redis://127.0.0.1:6379", source: "local" };
  }
  const embedded = await startEmbeddedRedis({
    dir: join(options.stateDir, "redis"),
    detached: true,
    persist: true,
  });
  return { url: embedded.url, source: "embedded", embedded };
}
