/**
 * The in-process tier in front of the shared Redis cache: a hit on a fresh answer this broker has
 * seen costs no Redis round trip at all. Correctness comes from the shared tier's invalidations:
 * every invalidation is published (p:invalidated) and each broker drops the local answers that
 * depend on any of the named tags; a Redis reconnect (when messages may have been missed) drops
 * everything. Bounded in bytes, least recently used first. An answer is only ever served from here
 * while fresh; anything else goes to Redis.
 */
import type { Tag } from "./core/facets.js";

/**
 * What this tier needs of an answer (response-cache.ts's CachedAnswer has it): declared here so the
 * shared tier, which holds this one, and this tier do not import each other.
 */
export interface LocalAnswer {
  readonly body: Buffer;
  readonly storedAt: number;
  readonly generations: Readonly<Record<Tag, number>>;
}

interface Entry<A extends LocalAnswer> {
  readonly answer: A;
  readonly tags: readonly Tag[];
  readonly bytes: number;
}

export class LocalAnswerCache<A extends LocalAnswer> {
  readonly #maxBytes: number;
  readonly #entries = new Map<string, Entry<A>>();
  readonly #byTag = new Map<Tag, Set<string>>();
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** The answer when held and stored less than `freshMs` ago. */
  fresh(hashed: string, freshMs: number, now: number): A | undefined {
    const entry = this.#entries.get(hashed);
    if (!entry || now - entry.answer.storedAt >= freshMs) return undefined;
    this.#entries.delete(hashed);
    this.#entries.set(hashed, entry);
    return entry.answer;
  }

  put(hashed: string, answer: A): void {
    if (this.#maxBytes <= 0) return;
    const bytes = answer.body.length + 512;
    if (bytes > this.#maxBytes / 8) return;
    this.#remove(hashed);
    const tags = Object.keys(answer.generations);
    this.#entries.set(hashed, { answer, tags, bytes });
    this.#bytes += bytes;
    for (const tag of tags) {
      let keys = this.#byTag.get(tag);
      if (!keys) {
        keys = new Set();
        this.#byTag.set(tag, keys);
      }
      keys.add(hashed);
    }
    while (this.#bytes > this.#maxBytes) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#remove(oldest);
    }
  }

  /** Drops every answer that depends on one of the tags. */
  invalidate(tags: readonly Tag[]): void {
    for (const tag of tags) {
      const keys = this.#byTag.get(tag);
      if (!keys) continue;
      for (const hashed of [...keys]) this.#remove(hashed);
    }
  }

  clear(): void {
    this.#entries.clear();
    this.#byTag.clear();
    this.#bytes = 0;
  }

  #remove(hashed: string): void {
    const entry = this.#entries.get(hashed);
    if (!entry) return;
    this.#entries.delete(hashed);
    this.#bytes -= entry.bytes;
    for (const tag of entry.tags) {
      const keys = this.#byTag.get(tag);
      keys?.delete(hashed);
      if (keys?.size === 0) this.#byTag.delete(tag);
    }
  }
}
