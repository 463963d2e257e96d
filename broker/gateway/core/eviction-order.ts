/**
 * Which connection goes first when the gateway is at its connection bound (decision 0012). Every
 * connection sits in one tier; a tier is a Map kept in the order its members entered it, so the
 * least recently changed member of the lowest non-empty tier is the first key of its Map: O(1) to
 * pick, O(1) to move. Members of the protected tier are counted but never picked.
 */

/** Tiers in eviction order; `protected` is never evicted. */
export const EvictionTier = {
  /** No valid broker token seen yet, no request in progress (slowloris, idle floods). */
  unauthenticatedIdle: 0,
  /** No valid broker token seen yet, a request in progress (token check, webhook, /health). */
  unauthenticatedBusy: 1,
  /** A valid token was seen; waiting between keep-alive requests. */
  authenticatedIdle: 2,
  /** A valid token was seen and a request is in progress: never cut. */
  protected: 3,
} as const;
export type EvictionTier = (typeof EvictionTier)[keyof typeof EvictionTier];

const EVICTABLE_TIERS = [
  EvictionTier.unauthenticatedIdle,
  EvictionTier.unauthenticatedBusy,
  EvictionTier.authenticatedIdle,
] as const;

export class EvictionOrder<K> {
  readonly #tiers: Map<K, number>[] = [new Map(), new Map(), new Map(), new Map()];
  readonly #tierOf = new Map<K, EvictionTier>();

  get size(): number {
    return this.#tierOf.size;
  }

  tierOf(key: K): EvictionTier | undefined {
    return this.#tierOf.get(key);
  }

  /** Puts `key` at the end (most recent) of `tier`, remembering `since` (ms). */
  set(key: K, tier: EvictionTier, since: number): void {
    const previous = this.#tierOf.get(key);
    if (previous !== undefined) this.#tiers[previous]?.delete(key);
    this.#tierOf.set(key, tier);
    this.#tiers[tier]?.set(key, since);
  }

  delete(key: K): void {
    const tier = this.#tierOf.get(key);
    if (tier === undefined) return;
    this.#tiers[tier]?.delete(key);
    this.#tierOf.delete(key);
  }

  /** The next connection to evict, or undefined when every one is protected. */
  victim(): K | undefined {
    for (const tier of EVICTABLE_TIERS) {
      const first = this.#tiers[tier]?.keys().next();
      if (first && !first.done) return first.value;
    }
    return undefined;
  }

  /**
   * Members of `tier` whose `since` is at or before `cutoff`, oldest first. The tier is ordered by
   * `since` (members enter with the current time), so the walk stops at the first younger one.
   */
  expired(tier: EvictionTier, cutoff: number): K[] {
    const out: K[] = [];
    for (const [key, since] of this.#tiers[tier] ?? []) {
      if (since > cutoff) break;
      out.push(key);
    }
    return out;
  }
}
