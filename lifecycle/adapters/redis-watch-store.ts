/**
 * Watched sessions in Redis: two hashes, `<prefix>:{lifecycle}:watches` and `…:states`, field =
 * session id, value = JSON. The `{lifecycle}` hash tag keeps both in one Redis Cluster slot, so
 * a watch and its state are written in one MULTI. States are saved only for sessions still
 * watched, checked inside Redis (a one-line script, kept inline because it is the adapter's only
 * one and dist/ ships broker/redis/lua alone), so an unwatch racing a save leaves no orphan.
 * Records that do not parse (a hand edit, a future layout) are skipped with a warning rather than
 * failing the broker's start.
 */
import { Redis } from "ioredis";
import type { Logger } from "../../common/index.js";
import { SESSION_STATE_VERSION, type SessionState } from "../core/session-state.js";
import { isSessionStatus } from "../core/session-status.js";
import type { StoredWatches, WatchRecord, WatchStore } from "../watch-store.js";

export interface RedisWatchStoreOptions {
  /** An ioredis client the caller owns; or `location` to let the store make (and close) its own. */
  readonly client?: Redis;
  /** redis://, rediss://, unix:///path.sock or an absolute socket path. */
  readonly location?: string;
  /** @defaultValue "aob" */
  readonly keyPrefix?: string;
  readonly logger?: Logger;
}

function clientFor(location: string): Redis {
  const client = location.startsWith("unix://")
    ? new Redis({ path: decodeURIComponent(new URL(location).pathname) })
    : location.startsWith("/")
      ? new Redis({ path: location })
      : new Redis(location);
  // Failed reconnects also fail the commands waiting on them, which report them; without a
  // listener ioredis would print every one as an "unhandled error event".
  client.on("error", () => undefined);
  return client;
}

/** KEYS[1] watches, KEYS[2] states; ARGV id1, json1, id2, json2, … Returns the number saved. */
const PUT_STATES_IF_WATCHED = `local n = 0
for i = 1, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 1 then
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
    n = n + 1
  end
end
return n`;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isWatch(value: unknown): value is WatchRecord {
  const v = value as Partial<WatchRecord> | undefined;
  return typeof v?.id === "string" && typeof v.repo === "string" && typeof v.branch === "string";
}

function isState(value: unknown): value is SessionState {
  const v = value as Partial<SessionState> | undefined;
  return v?.v === SESSION_STATE_VERSION && typeof v.id === "string" && isSessionStatus(v.status);
}

export function createRedisWatchStore(options: RedisWatchStoreOptions): WatchStore {
  if (!options.client && !options.location)
    throw new TypeError("createRedisWatchStore needs a client or a location");
  const owned = options.client === undefined;
  const redis = options.client ?? clientFor(options.location as string);
  const base = `${options.keyPrefix ?? "aob"}:{lifecycle}`;
  const watchesKey = `${base}:watches`;
  const statesKey = `${base}:states`;

  return {
    async load(): Promise<StoredWatches> {
      const [rawWatches, rawStates] = await Promise.all([
        redis.hgetall(watchesKey),
        redis.hgetall(statesKey),
      ]);
      const watches: WatchRecord[] = [];
      for (const [id, text] of Object.entries(rawWatches)) {
        const value = parseJson(text);
        if (isWatch(value) && value.id === id) watches.push(value);
        else options.logger?.warn({ id }, "lifecycle: skipping an unreadable watch record");
      }
      const watched = new Set(watches.map((w) => w.id));
      const states: SessionState[] = [];
      for (const [id, text] of Object.entries(rawStates)) {
        const value = parseJson(text);
        if (isState(value) && value.id === id && watched.has(id)) states.push(value);
        else if (!watched.has(id)) continue;
        else options.logger?.warn({ id }, "lifecycle: skipping an unreadable session state");
      }
      return { watches, states };
    },
    async putWatch(watch, state) {
      await redis
        .multi()
        .hset(watchesKey, watch.id, JSON.stringify(watch))
        .hset(statesKey, state.id, JSON.stringify(state))
        .exec();
    },
    async deleteWatch(id) {
      await redis.multi().hdel(watchesKey, id).hdel(statesKey, id).exec();
    },
    async putStates(states) {
      if (states.length === 0) return;
      const flat: string[] = [];
      for (const state of states) flat.push(state.id, JSON.stringify(state));
      await redis.eval(PUT_STATES_IF_WATCHED, 2, watchesKey, statesKey, ...flat);
    },
    async close() {
      if (owned) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
