/**
 * The registry of answers agents recently read, by the tags they read, with what it takes to ask
 * again (decision 0014). Shared by every broker on the same Redis, namespaced like the cache:
 *
 *   p:rr:<tag>   ZSET cache-key hash → when an agent last read it; trimmed on every write to the
 *                last `recentReadMs` and the newest `maxPerTag`, and expiring with the window.
 *   p:rq:<hash>  the replay (core/refresh-plan.ts ReplaySpec: method, path, the cache key's
 *                headers, GraphQL query and variables; never a token or a caller), EX the window.
 *   p:rp:<hash>  a refresh pending after a signal moved the key's tags (core/serve-decision.ts
 *                PendingRefresh), PX staleWhileRevalidateMs: what lets an agent be served the
 *                cached answer while it is being fetched again. The cache's lookup reads it.
 *
 * Tags of static repository information (`repo:`) are not registered: what moves them (an unknown
 * REST write) moves every answer of the repository, and refetching all of them at once for
 * answers that may never be read again is not worth it; they are fetched again on demand.
 * Each broker writes a key's read at most once per `noteEveryMs`.
 */
import type { Redis } from "ioredis";
import { CACHE_DEFAULTS } from "./cache-settings.js";
import type { Tag } from "./core/facets.js";
import { parseReplaySpec, type RegistryHit, type ReplaySpec } from "./core/refresh-plan.js";
import type { PendingRefresh } from "./core/serve-decision.js";
import { pendingRefreshKey } from "./response-cache.js";

export interface RefreshRegistryOptions {
  readonly redis: Redis;
  readonly prefix: string;
  /** Reads older than this are forgotten (and not refreshed). */
  readonly recentReadMs: number;
  /** Keys kept per tag, the most recently read. @defaultValue 500 */
  readonly maxPerTag?: number;
  /** How often one broker re-registers the same key. @defaultValue min(recentReadMs / 4, 15 s) */
  readonly noteEveryMs?: number;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

export function registeredTags(reads: readonly Tag[]): Tag[] {
  return reads.filter((t) => !t.startsWith("repo:"));
}

export class RefreshRegistry {
  readonly #redis: Redis;
  readonly #p: string;
  readonly #o: RefreshRegistryOptions;
  readonly #now: () => number;
  readonly #noteEveryMs: number;
  #lastNote = new Map<string, number>();

  constructor(options: RefreshRegistryOptions) {
    this.#redis = options.redis;
    this.#p = options.prefix;
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#noteEveryMs = options.noteEveryMs ?? Math.min(options.recentReadMs / 4, 15_000);
  }

  /** Records that an agent read `hashed` (which read `reads`); throttled per key. */
  async noteRead(hashed: string, spec: ReplaySpec, reads: readonly Tag[]): Promise<void> {
    const tags = registeredTags(reads);
    if (tags.length === 0) return;
    const now = this.#now();
    if ((this.#lastNote.get(hashed) ?? Number.NEGATIVE_INFINITY) > now - this.#noteEveryMs) return;
    this.#lastNote.set(hashed, now);
    if (this.#lastNote.size > 50_000) this.#lastNote = new Map([[hashed, now]]);
    const window = Math.max(1000, Math.ceil(this.#o.recentReadMs));
    const maxPerTag = this.#o.maxPerTag ?? CACHE_DEFAULTS.refresh.maxPerTag;
    const pipeline = this.#redis.pipeline();
    pipeline.set(`${this.#p}:rq:${hashed}`, JSON.stringify(spec), "PX", window);
    for (const tag of tags) {
      const key = `${this.#p}:rr:${tag}`;
      pipeline.zadd(key, now, hashed);
      pipeline.zremrangebyscore(key, "-inf", now - window);
      pipeline.zremrangebyrank(key, 0, -(maxPerTag + 1));
      pipeline.pexpire(key, window);
    }
    await pipeline.exec();
  }

  /** The keys registered under any of these tags within the window, with their replays. */
  async find(tags: readonly Tag[]): Promise<RegistryHit[]> {
    const wanted = [...new Set(registeredTags(tags))];
    if (wanted.length === 0) return [];
    const since = this.#now() - this.#o.recentReadMs;
    const pipeline = this.#redis.pipeline();
    for (const tag of wanted) pipeline.zrangebyscore(`${this.#p}:rr:${tag}`, since, "+inf", "WITHSCORES");
    const results = (await pipeline.exec()) ?? [];
    const found = new Map<string, { readAt: number; tags: Tag[] }>();
    wanted.forEach((tag, i) => {
      const flat = (results[i]?.[1] as string[] | undefined) ?? [];
      for (let j = 0; j + 1 < flat.length; j += 2) {
        const hashed = flat[j] as string;
        const readAt = Number(flat[j + 1]);
        const seen = found.get(hashed);
        if (seen) {
          seen.readAt = Math.max(seen.readAt, readAt);
          seen.tags.push(tag);
        } else found.set(hashed, { readAt, tags: [tag] });
      }
    });
    if (found.size === 0) return [];
    const hashes = [...found.keys()];
    const specs = await this.#redis.mget(...hashes.map((h) => `${this.#p}:rq:${h}`));
    return hashes.map((hashed, i) => {
      const f = found.get(hashed) as { readAt: number; tags: Tag[] };
      const spec = parseReplaySpec(specs[i]);
      return { hashed, readAt: f.readAt, tags: f.tags, ...(spec ? { spec } : {}) };
    });
  }

  /** Marks refreshes pending (stale-while-revalidate applies to these keys for `ttlMs`). */
  async markPending(
    entries: readonly { readonly hashed: string; readonly pending: PendingRefresh }[],
    ttlMs: number,
  ): Promise<void> {
    if (entries.length === 0 || ttlMs <= 0) return;
    const pipeline = this.#redis.pipeline();
    for (const { hashed, pending } of entries)
      pipeline.set(pendingRefreshKey(this.#p, hashed), JSON.stringify(pending), "PX", Math.ceil(ttlMs));
    await pipeline.exec();
  }

  /** Drops pending markers (the refresh is done or gave up). */
  async clearPending(hashes: readonly string[]): Promise<void> {
    if (hashes.length === 0) return;
    await this.#redis.del(...hashes.map((h) => pendingRefreshKey(this.#p, h)));
  }
}
