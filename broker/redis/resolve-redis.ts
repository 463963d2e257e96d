/**
 * Where the broker's Redis is, in the order of docs/architecture.md ("Commands and environment"): an explicit URL (--redis, REDIS_URL, config);
 * else a Redis answering on 127.0.0.1:6379; else a private redis-server under the state directory.
 * AO_BROKER_PROBE_LOCAL_REDIS=0 skips the 127.0.0.1:6379 probe, so the private server is used even
 * where another Redis runs (tests; a machine whose Redis belongs to something else).
 */
import { join } from "node:path";
import { type EmbeddedRedis, pingRedis, startEmbeddedRedis } from "./embedded-redis.js";

export interface ResolveRedisOptions {
  readonly url?: string | undefined;
  /** The broker's state directory; the private server lives in `<stateDir>/redis`. */
  readonly stateDir: string;
  /** Probe 127.0.0.1:6379 before starting a private server. @defaultValue true, unless AO_BROKER_PROBE_LOCAL_REDIS=0 */
  readonly probeLocal?: boolean;
  /** @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** How long a private server may take to answer. @defaultValue redis.startTimeoutMs (docs/config.md) */
  readonly startTimeoutMs?: number | undefined;
}

export interface ResolvedRedis {
  readonly url: string;
  readonly source: "explicit" | "local" | "embedded";
  readonly embedded?: EmbeddedRedis;
}

export async function resolveRedis(options: ResolveRedisOptions): Promise<ResolvedRedis> {
  if (options.url) return { url: options.url, source: "explicit" };
  const probe =
    (options.probeLocal ?? true) && (options.env ?? process.env).AO_BROKER_PROBE_LOCAL_REDIS !== "0";
  if (probe && (await pingRedis({ host: "127.0.0.1", port: 6379 }, 300))) {
    return { url: "redis://127.0.0.1:6379", source: "local" };
  }
  const embedded = await startEmbeddedRedis({
    dir: join(options.stateDir, "redis"),
    detached: true,
    persist: true,
    ...(options.startTimeoutMs !== undefined ? { startTimeoutMs: options.startTimeoutMs } : {}),
  });
  return { url: embedded.url, source: "embedded", embedded };
}
