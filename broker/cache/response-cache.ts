/**
 * The broker's answer cache in Redis, shared by every broker on the same Redis.
 *
 * Entry  p:c:<sha256(key)>  HASH {meta: JSON, body: bytes, size}. Kept `retainSeconds` after its last
 *        use — long past freshness, because a stale entry still serves a revalidation (If-None-Match,
 *        free when GitHub answers 304) or a caller that accepts stale data while the budget is spent.
 *        Entries carry no Redis TTL: a sweep deletes unused ones, so p:bytes always matches what exists.
 * Tags   p:g:<tag>  generation counters of (object, facet) tags (core/facets.ts). An entry records
 *        the generations of the tags it read as they were BEFORE its upstream request was sent; a
 *        write bumps exactly the tags it changes; so an answer that raced with a write is never
 *        taken for fresh.
 * Ids    p:id:<globalId> → JSON [object], p:ti:<object> SET of ids: learned from answers so writes
 *        that name a PR by global id move its facets and those of its node(id:) reads.
 * Branch p:ob:<object> → head branch, p:bo:<branch tag> SET of objects: a state change moves that
 *        branch's PR lookup only; a deleted branch moves its PRs.
 * Vouch  p:v:<object>  the time (ms) up to which a free signal (the lifecycle's guards) saw nothing
 *        change for that object (num: or node:; nodei:<id> for the issues-list guard's vouch of a
 *        learned id, p:ri:<o/r> the set of a repository's learned ids). Every change seen before that time was
 *        invalidated first, so an answer whose tags are current is good as of the vouch.
 * Reads  p:rd:<num tag>  when agents last read that PR in a way a vouch could serve (written at
 *        most once per tag per `readMarkEveryMs` by each broker); the lifecycle keeps those PRs'
 *        guards at its active cadence, so their vouches stay recent.
 * Final  p:fj:job:<o/r>#<id>  a job (check run) an answer showed completed: its annotations read
 *        after that are final (core/final-answers.ts). Final entries carry `final` in their meta
 *        and only the tags they still follow.
 * Refresh p:rr:<tag> ZSET (cache-key hash → when agents last read it), p:rq:<hash> its replay,
 *        p:rp:<hash> a refresh pending after a signal moved its tags (refresh-registry.ts; decision
 *        0014): read with the entry, so stale-while-revalidate costs no extra round trip.
 * Bound  p:lru ZSET (key → last use) and p:bytes: when the stored bytes pass maxBytes, the least
 *        recently used entries are deleted. Touches are batched (at most one per key per second)
 *        so a hit does not cost an extra write each time.
 * Local  a bounded in-process tier (local-answer-cache.ts) serves fresh answers without Redis;
 *        invalidations are published on p:invalidated so every broker drops what they touch.
 * Runs   the repositories' latest runs pages this broker read (in process, core/runs-page.ts): run
 *        records and branch run lists are derived from them instead of being fetched again.
 * Errors are never stored: callers store only 2xx answers.
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import type { PubSubHub } from "../redis/pubsub-hub.js";
import { inheritedVouches, type Tag } from "./core/facets.js";
import type { LearnedAliases } from "./core/graphql-analysis.js";
import type { Aliases, AliasRequest } from "./core/resolve-write.js";
import { type HeldPage, withOwnMoves } from "./core/runs-page.js";
import type { PendingRefresh } from "./core/serve-decision.js";
import { LocalAnswerCache } from "./local-answer-cache.js";

export interface CachedAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly storedAt: number;
  /** Generations of the tags this answer depends on, captured before its request was sent. */
  readonly generations: Readonly<Record<Tag, number>>;
  /**
   * A final answer (core/final-answers.ts): GitHub never changes it again. `generations` then holds
   * only the tags it still follows (none, or a completed run's own tag), so motion elsewhere leaves it.
   */
  readonly final?: true;
}

export interface LookupResult {
  readonly answer: CachedAnswer | undefined;
  /** False when any tag moved since the answer was stored (a write or an observed change). */
  readonly tagsCurrent: boolean;
  /** The oldest vouch among the requested vouch tags (0 when any has none). */
  readonly vouchedAt: number;
  /** Current generations of the requested tags, to store with a fresh answer. */
  readonly generations: Readonly<Record<Tag, number>>;
  /** A refresh pending for this key after a signal moved its tags (stale-while-revalidate). */
  readonly pending?: PendingRefresh | undefined;
}

/** Who moved tags: a signal (lifecycle guard, webhook) or a write through the broker. */
export type InvalidationOrigin = "signal" | "write";

export interface Invalidation {
  readonly origin: InvalidationOrigin;
  /** When the broker learned of the change, epoch ms. */
  readonly at: number;
  /** Each moved tag: [generation before, after] (INCR is atomic, so before = after − 1). */
  readonly moves: Readonly<Record<Tag, readonly [number, number]>>;
}

export type InvalidationListener = (invalidation: Invalidation) => void;

/** The Redis key of a pending refresh marker (read by lookup, written by refresh-registry.ts). */
export function pendingRefreshKey(prefix: string, hashed: string): string {
  return `${prefix}:rp:${hashed}`;
}

function parsePending(value: string | null | undefined): PendingRefresh | undefined {
  if (!value) return undefined;
  try {
    const v = JSON.parse(value) as PendingRefresh;
    return typeof v.knownAt === "number" && typeof v.moves === "object" && v.moves !== null ? v : undefined;
  } catch {
    return undefined;
  }
}

export interface ResponseCacheOptions {
  readonly redis: Redis;
  readonly prefix: string;
  readonly maxBytes: number;
  readonly maxEntryBytes: number;
  readonly retainSeconds: number;
  /** Bytes of answers kept in process as well. @defaultValue 0 (none) */
  readonly localBytes?: number;
  /** Where invalidations are heard (required for the local tier to be used across brokers). */
  readonly pubsub?: PubSubHub;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

export interface CacheStats {
  readonly entries: number;
  readonly bytes: number;
  readonly evictions: number;
  /** The in-process tier. */
  readonly localEntries: number;
  readonly localBytes: number;
}

export class ResponseCache {
  readonly #redis: Redis;
  readonly #p: string;
  readonly #options: ResponseCacheOptions;
  readonly #now: () => number;
  readonly #pendingTouches = new Map<string, number>();
  #lastReadMark = new Map<Tag, number>();
  #lastTouch = new Map<string, number>();
  #touchTimer: NodeJS.Timeout | undefined;
  #sweepTimer: NodeJS.Timeout | undefined;
  #evictions = 0;
  readonly #listeners = new Set<InvalidationListener>();
  readonly #local: LocalAnswerCache<CachedAnswer>;
  /** Repository (`o/r`, lower-case) → the latest runs page read through this broker. */
  readonly #runsPages = new Map<string, HeldPage>();
  #unsubscribe: (() => Promise<void>) | undefined;

  constructor(options: ResponseCacheOptions) {
    this.#redis = options.redis;
    this.#p = options.prefix;
    this.#options = options;
    this.#now = options.now ?? Date.now;
    // Without a way to hear other brokers' invalidations, a local tier could serve answers they
    // invalidated: it is only enabled with pub/sub.
    this.#local = new LocalAnswerCache(options.pubsub ? (options.localBytes ?? 0) : 0);
  }

  get #invalidations(): string {
    return `${this.#p}:invalidated`;
  }

  /** A fresh answer from the in-process tier, or undefined (then ask lookup()). */
  localFresh(key: string, freshMs: number): { answer: CachedAnswer; hashed: string } | undefined {
    const hashed = ResponseCache.hashKey(key);
    const answer = this.#local.fresh(hashed, freshMs, this.#now());
    return answer ? { answer, hashed } : undefined;
  }

  /** Forget every local answer (after a Redis reconnect, when invalidations may have been missed). */
  clearLocal(): void {
    this.#local.clear();
  }

  static hashKey(key: string): string {
    return createHash("sha256").update(key).digest("hex");
  }

  /**
   * The stored answer, whether every tag it read is still at its generation, and as of when free
   * signals vouch for it: for each group (one per tag it read) the newest vouch of any key in the
   * group, and of those the oldest (0 when some group has none).
   */
  async lookup(
    key: string,
    tags: readonly Tag[],
    vouchGroups: readonly (readonly string[])[] = [],
    options: { readonly pending?: boolean } = {},
  ): Promise<LookupResult> {
    const hashed = ResponseCache.hashKey(key);
    const pipeline = this.#redis.pipeline();
    pipeline.hgetallBuffer(`${this.#p}:c:${hashed}`);
    const vouchTags = [...new Set(vouchGroups.flat())];
    const keys = [
      ...tags.map((t) => `${this.#p}:g:${t}`),
      ...vouchTags.map((t) => `${this.#p}:v:${t}`),
      ...(options.pending ? [pendingRefreshKey(this.#p, hashed)] : []),
    ];
    if (keys.length > 0) pipeline.mget(...keys);
    const results = (await pipeline.exec()) ?? [];
    const raw = results[0]?.[1] as Record<string, Buffer> | undefined;
    const values = (results[1]?.[1] as (string | null)[] | undefined) ?? [];
    const generations: Record<Tag, number> = {};
    tags.forEach((tag, i) => {
      generations[tag] = Number(values[i] ?? 0);
    });
    const vouchValues = new Map(vouchTags.map((t, i) => [t, values[tags.length + i] ?? null]));
    const vouchedAtFor = (storedAt: number) => {
      const at = (t: string) => {
        const [when = "0", since = "0"] = (vouchValues.get(t) ?? "0").split(":");
        return storedAt >= Number(since) ? Number(when) : 0;
      };
      const vouches = vouchGroups.map((group) => Math.max(0, ...group.map(at)));
      return vouches.length > 0 ? Math.min(...vouches) : 0;
    };
    const missing = { answer: undefined, tagsCurrent: false, generations, vouchedAt: 0 };
    const pending = options.pending ? parsePending(values[tags.length + vouchTags.length]) : undefined;
    if (!raw?.meta || !raw.body) return missing;
    let meta: Omit<CachedAnswer, "body">;
    try {
      meta = JSON.parse(raw.meta.toString("utf8")) as Omit<CachedAnswer, "body">;
    } catch {
      return missing;
    }
    // A final answer follows no tag (core/final-answers.ts); older entries kept some, compared here.
    const tagsCurrent = meta.final
      ? Object.entries(meta.generations).every(([tag, g]) => (generations[tag] ?? 0) === g)
      : tags.every((tag) => (meta.generations[tag] ?? 0) === generations[tag]);
    this.#touch(hashed);
    const answer = { ...meta, body: raw.body };
    if (tagsCurrent) this.#local.put(hashed, answer);
    return {
      answer,
      tagsCurrent,
      generations,
      vouchedAt: vouchedAtFor(meta.storedAt),
      ...(pending ? { pending } : {}),
    };
  }

  /**
   * Records that nothing changed for these tags (and the node tags learned for them) up to `at`.
   * The caller must have invalidated every change it saw before `at` first.
   */
  async vouch(
    entries: readonly { readonly tag: Tag; readonly at: number; readonly since?: number }[],
  ): Promise<void> {
    if (entries.length === 0) return;
    const idSets = await Promise.all(
      entries.map((e) =>
        e.tag.startsWith("num:") ? this.#redis.smembers(`${this.#p}:ti:${e.tag}`) : Promise.resolve([]),
      ),
    );
    // The issues-list guard vouches for every id learned in its repository (`nodei:<id>`): its
    // invalidations move those ids' node facets as well as the num: ones.
    const repoIds = await Promise.all(
      entries.map((e) =>
        e.tag.startsWith("issues:")
          ? this.#redis.smembers(`${this.#p}:ri:${e.tag.slice("issues:".length)}`)
          : Promise.resolve([]),
      ),
    );
    const pipeline = this.#redis.pipeline();
    const ttl = Math.max(60, this.#options.retainSeconds);
    entries.forEach(({ tag, at, since }, i) => {
      // "at" or "at:since": answers stored before `since` are not covered (the signal's first read).
      const value = since ? `${Math.floor(at)}:${Math.floor(since)}` : String(Math.floor(at));
      for (const t of [
        tag,
        ...(idSets[i] ?? []).map((id) => `node:${id}`),
        ...(repoIds[i] ?? []).map((id) => `nodei:${id}`),
      ]) {
        pipeline.set(`${this.#p}:v:${t}`, value, "EX", ttl);
      }
    });
    await pipeline.exec();
  }

  async store(key: string, answer: CachedAnswer): Promise<boolean> {
    if (answer.body.length > this.#options.maxEntryBytes) return false;
    const hashed = ResponseCache.hashKey(key);
    this.#local.put(hashed, answer);
    const entryKey = `${this.#p}:c:${hashed}`;
    const { body, ...meta } = answer;
    const size = body.length + 256;
    const results = await this.#redis
      .multi()
      .hget(entryKey, "size")
      .hset(entryKey, { meta: JSON.stringify(meta), body, size: String(size) })
      .zadd(`${this.#p}:lru`, this.#now(), hashed)
      .exec();
    const previous = Number((results?.[0]?.[1] as string | null) ?? 0);
    const total = await this.#redis.incrby(`${this.#p}:bytes`, size - previous);
    if (total > this.#options.maxBytes) await this.#evict(total);
    return true;
  }

  /**
   * Replaces a stored answer's body with `patch(body)` (a webhook's payload object: decision 0021)
   * and stores it under the current generations of `tags`, as of now: the answer is then current
   * without a request. Only an entry that exists and is not final is patched (a final answer never
   * changes), and only when `patch` returns a body (it refuses an older object). The entry's
   * validators go (its ETag named the old body). Returns whether it was patched.
   */
  async patchEntry(
    hashed: string,
    tags: readonly Tag[],
    patch: (body: Buffer) => Buffer | undefined,
  ): Promise<boolean> {
    const entryKey = `${this.#p}:c:${hashed}`;
    const pipeline = this.#redis.pipeline();
    pipeline.hgetallBuffer(entryKey);
    if (tags.length > 0) pipeline.mget(...tags.map((t) => `${this.#p}:g:${t}`));
    const results = (await pipeline.exec()) ?? [];
    const raw = results[0]?.[1] as Record<string, Buffer> | undefined;
    const values = (results[1]?.[1] as (string | null)[] | undefined) ?? [];
    if (!raw?.meta || !raw.body) return false;
    let meta: Omit<CachedAnswer, "body">;
    try {
      meta = JSON.parse(raw.meta.toString("utf8")) as Omit<CachedAnswer, "body">;
    } catch {
      return false;
    }
    if (meta.final || meta.status !== 200) return false;
    const body = patch(raw.body);
    if (!body || body.length > this.#options.maxEntryBytes) return false;
    const generations: Record<Tag, number> = {};
    tags.forEach((tag, i) => {
      generations[tag] = Number(values[i] ?? 0);
    });
    const headers = { ...meta.headers };
    for (const name of ["etag", "last-modified", "content-length"]) delete headers[name];
    const answer: CachedAnswer = { status: meta.status, headers, body, storedAt: this.#now(), generations };
    this.#local.put(hashed, answer);
    const { body: _body, ...nextMeta } = answer;
    const size = body.length + 256;
    const previous = Number(raw.size?.toString("utf8") ?? 0);
    await this.#redis
      .multi()
      .hset(entryKey, { meta: JSON.stringify(nextMeta), body, size: String(size) })
      .zadd(`${this.#p}:lru`, this.#now(), hashed)
      .incrby(`${this.#p}:bytes`, size - previous)
      .exec();
    return true;
  }

  /** Refreshes an entry's storedAt (after a 304) without rewriting its body. */
  async refresh(
    key: string,
    answer: CachedAnswer,
    headers: Readonly<Record<string, string>>,
  ): Promise<CachedAnswer> {
    const refreshed: CachedAnswer = {
      ...answer,
      headers: { ...answer.headers, ...headers },
      storedAt: this.#now(),
    };
    const { body: _body, ...meta } = refreshed;
    const hashed = ResponseCache.hashKey(key);
    await this.#redis
      .multi()
      .hset(`${this.#p}:c:${hashed}`, "meta", JSON.stringify(meta))
      .zadd(`${this.#p}:lru`, this.#now(), hashed)
      .exec();
    return refreshed;
  }

  /**
   * Bumps the generations of exactly these tags (core/resolve-write.ts resolves them) and tells
   * this broker's listeners (the refresher) what moved, from which generation to which. `origin`
   * says who saw the change: only a signal's moves may be served stale while they are refreshed.
   */
  async invalidate(
    tags: readonly Tag[],
    options: { readonly origin?: InvalidationOrigin } = {},
  ): Promise<Invalidation | undefined> {
    if (tags.length === 0) return undefined;
    const all = [...new Set(tags)];
    const pipeline = this.#redis.pipeline();
    for (const tag of all) pipeline.incr(`${this.#p}:g:${tag}`);
    pipeline.publish(this.#invalidations, JSON.stringify(all));
    this.#local.invalidate(all);
    const results = (await pipeline.exec()) ?? [];
    const moves: Record<Tag, readonly [number, number]> = {};
    all.forEach((tag, i) => {
      const after = Number(results[i]?.[1] ?? Number.NaN);
      if (Number.isFinite(after)) moves[tag] = [after - 1, after];
    });
    const invalidation: Invalidation = { origin: options.origin ?? "write", at: this.#now(), moves };
    for (const listener of this.#listeners) {
      try {
        listener(invalidation);
      } catch {
        // a listener's failure is its own; the invalidation has happened
      }
    }
    return invalidation;
  }

  /** The current generations of these tags (0 for a tag never moved). */
  async generations(tags: readonly Tag[]): Promise<Record<Tag, number>> {
    const out: Record<Tag, number> = {};
    if (tags.length === 0) return out;
    const values = await this.#redis.mget(...tags.map((t) => `${this.#p}:g:${t}`));
    tags.forEach((tag, i) => {
      out[tag] = Number(values[i] ?? 0);
    });
    return out;
  }

  /** The latest runs page of a repository this broker read (core/runs-page.ts), if any. */
  runsPage(repo: string): HeldPage | undefined {
    return this.#runsPages.get(repo);
  }

  /** Holds (or, with undefined, forgets) a repository's runs page. */
  holdRunsPage(repo: string, page: HeldPage | undefined): void {
    if (page) this.#runsPages.set(repo, page);
    else this.#runsPages.delete(repo);
  }

  /** The Actions guard invalidated what its page showed moved: the held page stays current. */
  noteRunsPageMoves(repo: string, invalidation: Invalidation | undefined): void {
    const held = this.#runsPages.get(repo);
    if (held && invalidation) this.#runsPages.set(repo, withOwnMoves(held, invalidation.moves));
  }

  /** Hears every invalidation made through this instance; returns the way to stop. */
  onInvalidated(listener: InvalidationListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The learned aliases a write's resolution needs (ids → objects → their ids and branch). */
  async aliases(request: AliasRequest): Promise<Aliases> {
    const idObjects = new Map<string, string>();
    for (const [id, object] of await this.objectsForIds(request.ids)) idObjects.set(id, object);
    const branchObjects = new Map<Tag, string[]>();
    const branchSets = await Promise.all(
      request.branches.map((b) => this.#redis.smembers(`${this.#p}:bo:${b}`)),
    );
    request.branches.forEach((b, i) => {
      branchObjects.set(b, branchSets[i] ?? []);
    });
    const objects = [
      ...new Set([
        ...request.objects,
        ...[...idObjects.values()].filter((o) => o.startsWith("num:")),
        ...branchSets.flat(),
      ]),
    ];
    const objectIds = new Map<string, string[]>();
    const objectBranch = new Map<string, string>();
    if (objects.length > 0) {
      const pipeline = this.#redis.pipeline();
      for (const o of objects) pipeline.smembers(`${this.#p}:ti:${o}`);
      pipeline.mget(...objects.map((o) => `${this.#p}:ob:${o}`));
      const results = (await pipeline.exec()) ?? [];
      objects.forEach((o, i) => {
        objectIds.set(o, (results[i]?.[1] as string[] | undefined) ?? []);
      });
      const branches = (results[objects.length]?.[1] as (string | null)[] | undefined) ?? [];
      objects.forEach((o, i) => {
        const branch = branches[i];
        if (branch) objectBranch.set(o, branch);
      });
    }
    return { idObjects, objectIds, objectBranch, branchObjects };
  }

  /**
   * Notes that an agent read data a vouch covers (these objects) past its plain freshness. Node
   * objects are traced back to their PR through the learned ids. Throttled per object.
   */
  async noteAgentRead(vouchObjects: readonly string[], everyMs: number): Promise<void> {
    const now = this.#now();
    const due = vouchObjects.filter((o) => (this.#lastReadMark.get(o) ?? 0) <= now - everyMs);
    if (due.length === 0) return;
    for (const o of due) this.#lastReadMark.set(o, now);
    if (this.#lastReadMark.size > 50_000) this.#lastReadMark = new Map();
    const ids = due.filter((o) => o.startsWith("node:")).map((o) => o.slice("node:".length));
    const prObjects = new Set(due.filter((o) => o.startsWith("num:")));
    for (const object of (await this.objectsForIds(ids)).values())
      if (object.startsWith("num:")) prObjects.add(object);
    if (prObjects.size === 0) return;
    const pipeline = this.#redis.pipeline();
    const ttl = Math.max(60, this.#options.retainSeconds);
    for (const o of prObjects) pipeline.set(`${this.#p}:rd:${o}`, String(now), "EX", ttl);
    await pipeline.exec();
  }

  /** When agents last read each PR object (0 when not known), in order. */
  async agentReads(prObjects: readonly string[]): Promise<number[]> {
    if (prObjects.length === 0) return [];
    const values = await this.#redis.mget(...prObjects.map((o) => `${this.#p}:rd:${o}`));
    return values.map((v) => Number(v ?? 0));
  }

  /**
   * Records job (check run) ids answers showed completed (`p:fj:<job:o/r#id>`), so a later
   * annotations answer of those ids can be stored as final. Kept as long as learned ids.
   */
  async markJobsCompleted(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    const pipeline = this.#redis.pipeline();
    const ttl = this.#options.retainSeconds * 24;
    for (const key of keys) pipeline.set(`${this.#p}:fj:${key}`, "1", "EX", ttl);
    await pipeline.exec();
  }

  /** Whether an answer showed this job (`job:o/r#id`) completed. */
  async jobCompleted(key: string): Promise<boolean> {
    return (await this.#redis.exists(`${this.#p}:fj:${key}`)) === 1;
  }

  /** Records global ids and head branches seen in answers. */
  async learnIds(learned: LearnedAliases): Promise<void> {
    if (learned.ids.size === 0 && learned.branches.size === 0) return;
    const pipeline = this.#redis.pipeline();
    const ttl = this.#options.retainSeconds * 24;
    for (const [id, object] of learned.ids) {
      pipeline.set(`${this.#p}:id:${id}`, JSON.stringify([object]), "EX", ttl);
      pipeline.sadd(`${this.#p}:ti:${object}`, id);
      pipeline.expire(`${this.#p}:ti:${object}`, ttl);
      const repo = /^num:([^#]+)#/.exec(object)?.[1];
      if (repo) {
        // The ids of a repository's PRs and issues, for the issues-list guard's vouches.
        pipeline.sadd(`${this.#p}:ri:${repo}`, id);
        pipeline.expire(`${this.#p}:ri:${repo}`, this.#options.retainSeconds);
      }
    }
    for (const [object, branch] of learned.branches) {
      const repo = /^num:([^#]+)#/.exec(object)?.[1];
      if (!repo) continue;
      const branchKey = `${this.#p}:bo:branch:${repo}:${branch}`;
      pipeline.set(`${this.#p}:ob:${object}`, branch, "EX", ttl);
      pipeline.sadd(branchKey, object);
      pipeline.expire(branchKey, ttl);
    }
    await pipeline.exec();
    // Vouches already sent for these objects cover the ids learned now (core/facets.ts
    // inheritedVouches). Read after the ids were added: a vouch that wrote after this read found them.
    const inherited = inheritedVouches(learned.ids);
    if (inherited.length === 0) return;
    const values = await this.#redis.mget(...inherited.map(([from]) => `${this.#p}:v:${from}`));
    const copy = this.#redis.pipeline();
    const vouchTtl = Math.max(60, this.#options.retainSeconds);
    inherited.forEach(([, to], i) => {
      const value = values[i];
      // NX: a vouch already written for the id came with this one or after it.
      if (value) copy.set(`${this.#p}:v:${to}`, value, "EX", vouchTtl, "NX");
    });
    await copy.exec();
  }

  /** The objects (`num:o/r#n`, `repo:o/r`) learned for global ids; unknown ids are left out. */
  async objectsForIds(ids: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (ids.length === 0) return out;
    const values = await this.#redis.mget(...ids.map((id) => `${this.#p}:id:${id}`));
    ids.forEach((id, i) => {
      const value = values[i];
      if (!value) return;
      try {
        const object = (JSON.parse(value) as string[]).find(
          (t) => t.startsWith("num:") || t.startsWith("repo:"),
        );
        if (object) out.set(id, object);
      } catch {
        // a corrupt mapping: the id stays unknown, and a write naming it moves all its node facets
      }
    });
    return out;
  }

  async stats(): Promise<CacheStats> {
    const [entries, bytes] = await Promise.all([
      this.#redis.zcard(`${this.#p}:lru`),
      this.#redis.get(`${this.#p}:bytes`),
    ]);
    return {
      entries,
      bytes: Number(bytes ?? 0),
      evictions: this.#evictions,
      localEntries: this.#local.size,
      localBytes: this.#local.bytes,
    };
  }

  /** Starts the periodic sweep of entries unused for retainSeconds, and listens for invalidations. */
  async start(): Promise<void> {
    if (this.#options.pubsub) {
      this.#unsubscribe = await this.#options.pubsub.subscribe(this.#invalidations, (message) => {
        try {
          this.#local.invalidate(JSON.parse(message.toString("utf8")) as Tag[]);
        } catch {
          this.#local.clear();
        }
      });
    }
    this.#sweepTimer = setInterval(() => void this.sweep().catch(() => undefined), 60_000);
    this.#sweepTimer.unref();
  }

  /** Deletes entries not used for retainSeconds; returns how many. */
  async sweep(): Promise<number> {
    const cutoff = this.#now() - this.#options.retainSeconds * 1000;
    const hashes = await this.#redis.zrangebyscore(`${this.#p}:lru`, 0, cutoff, "LIMIT", 0, 500);
    if (hashes.length === 0) return 0;
    await this.#remove(hashes);
    return hashes.length;
  }

  async close(): Promise<void> {
    await this.#unsubscribe?.();
    this.#local.clear();
    if (this.#sweepTimer) clearInterval(this.#sweepTimer);
    this.#sweepTimer = undefined;
    if (this.#touchTimer) clearTimeout(this.#touchTimer);
    this.#touchTimer = undefined;
    await this.#flushTouches();
  }

  #touch(hashed: string): void {
    const now = this.#now();
    if ((this.#lastTouch.get(hashed) ?? 0) > now - 1000) return;
    this.#pendingTouches.set(hashed, now);
    if (!this.#touchTimer) {
      this.#touchTimer = setTimeout(() => {
        this.#touchTimer = undefined;
        void this.#flushTouches();
      }, 250);
      this.#touchTimer.unref();
    }
  }

  async #flushTouches(): Promise<void> {
    if (this.#pendingTouches.size === 0) return;
    const pipeline = this.#redis.pipeline();
    for (const [hashed, at] of this.#pendingTouches) {
      pipeline.zadd(`${this.#p}:lru`, "XX", at, hashed);
      this.#lastTouch.set(hashed, at);
    }
    this.#pendingTouches.clear();
    if (this.#lastTouch.size > 50_000) this.#lastTouch = new Map();
    try {
      await pipeline.exec();
    } catch {
      // Recency is advisory; losing a batch of touches only makes eviction slightly less precise.
    }
  }

  async #evict(total: number): Promise<void> {
    let excess = total - this.#options.maxBytes * 0.9;
    while (excess > 0) {
      const hashes = await this.#redis.zrange(`${this.#p}:lru`, "0", "31");
      if (hashes.length === 0) break;
      const freed = await this.#remove(hashes);
      this.#evictions += hashes.length;
      excess -= freed;
    }
  }

  /** Deletes entries and keeps p:bytes exact; safe when another broker removes the same ones. */
  async #remove(hashes: readonly string[]): Promise<number> {
    const pipeline = this.#redis.pipeline();
    for (const hashed of hashes) pipeline.hget(`${this.#p}:c:${hashed}`, "size");
    const sizes = ((await pipeline.exec()) ?? []).map(([, v]) => Number(v ?? 0));
    const multi = this.#redis.multi();
    for (const hashed of hashes) multi.del(`${this.#p}:c:${hashed}`);
    multi.zrem(`${this.#p}:lru`, ...hashes);
    const results = (await multi.exec()) ?? [];
    // Only entries this call actually deleted give their bytes back (DEL returns 1 for them).
    let freed = 0;
    hashes.forEach((_, i) => {
      if (results[i]?.[1] === 1) freed += sizes[i] ?? 0;
    });
    if (freed > 0) await this.#redis.decrby(`${this.#p}:bytes`, freed);
    return freed;
  }
}
