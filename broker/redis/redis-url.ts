/**
 * Redis locations are strings everywhere in config and CLI: `redis://`, `rediss://`, or
 * `unix:///abs/path.sock` (what the embedded default produces). This is the one place that turns
 * a location into an ioredis client, so every Redis connection of the project is made the same way.
 */
import { Redis } from "ioredis";
import { AoError, CommonErrors } from "../../common/index.js";

export interface RedisConnectionOptions {
  readonly path?: string;
  readonly host?: string;
  readonly port?: number;
  readonly username?: string;
  readonly password?: string;
  readonly db?: number;
  readonly tls?: Record<string, never>;
}

export function redisOptionsFromUrl(location: string): RedisConnectionOptions {
  if (location.startsWith("unix://")) {
    const url = new URL(location);
    const db = url.searchParams.get("db");
    return { path: decodeURIComponent(url.pathname), ...(db ? { db: Number(db) } : {}) };
  }
  if (location.startsWith("/")) return { path: location };
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    throw new AoError(
      CommonErrors.AO_ERR_CONFIG_INVALID,
      `redis: "${location}" is not a redis://, rediss:// or unix:// URL`,
    );
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    throw new AoError(
      CommonErrors.AO_ERR_CONFIG_INVALID,
      `redis: unsupported scheme "${url.protocol}" (use redis://, rediss:// or unix://)`,
    );
  }
  const db = url.pathname.length > 1 ? Number(url.pathname.slice(1)) : undefined;
  return {
    host: url.hostname || "127.0.0.1",
    port: url.port ? Number(url.port) : 6379,
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(db !== undefined && Number.isFinite(db) ? { db } : {}),
    ...(url.protocol === "rediss:" ? { tls: {} } : {}),
  };
}

export interface RedisClientOptions {
  /** Name shown in CLIENT LIST, e.g. "aob:gateway". */
  readonly connectionName?: string;
  /** BullMQ requires null for its blocking connections. @defaultValue 20 */
  readonly maxRetriesPerRequest?: number | null;
  /** Fail fast instead of queueing commands while disconnected. @defaultValue true */
  readonly enableOfflineQueue?: boolean;
  readonly lazyConnect?: boolean;
}

export function createRedisClient(location: string, options: RedisClientOptions = {}): Redis {
  const connection = redisOptionsFromUrl(location);
  const settings = {
    ...connection,
    ...(options.connectionName ? { connectionName: options.connectionName } : {}),
    maxRetriesPerRequest: options.maxRetriesPerRequest === undefined ? 20 : options.maxRetriesPerRequest,
    enableOfflineQueue: options.enableOfflineQueue ?? true,
    lazyConnect: options.lazyConnect ?? false,
    // Reconnect forever with a capped backoff: a Redis restart must never take the broker down.
    retryStrategy: (attempt: number) => Math.min(50 * 2 ** Math.min(attempt, 6), 2_000),
  };
  // ioredis' option types do not compile under exactOptionalPropertyTypes; the shape above is checked.
  const client = new Redis(settings as never);
  // Connection errors also fail the commands that were waiting, which is where they are handled;
  // without a listener ioredis would print each failed reconnect as an "unhandled error event".
  client.on("error", () => undefined);
  return client;
}

/** A location safe to print: the password is masked. */
export function describeRedisUrl(location: string): string {
  if (location.startsWith("unix://") || location.startsWith("/")) return location;
  try {
    const url = new URL(location);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "(invalid redis url)";
  }
}
