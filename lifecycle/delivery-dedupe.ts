/**
 * Remembers webhook delivery ids (X-GitHub-Delivery) so a redelivery is acknowledged without being
 * processed twice. Processing is idempotent anyway (observations carry versions), so this only
 * saves work; entries therefore expire (24 h by default) and the in-memory set is bounded. The
 * broker can use the Redis one (adapters/redis-delivery-dedupe.ts) so several brokers behind one
 * webhook URL share it.
 */
import { DEFAULT_LIFECYCLE_CONFIG } from "./config.js";

export interface DeliveryDedupe {
  /** True the first time an id is seen (and marks it); false for a repeat. */
  firstSeen(id: string): Promise<boolean>;
  /** Forgets an id, so a redelivery after a failed processing is processed. */
  forget(id: string): Promise<void>;
}

export interface MemoryDeliveryDedupeOptions {
  /** @defaultValue 86_400_000 */
  readonly ttlMs?: number;
  /** @defaultValue 10_000 */
  readonly maxEntries?: number;
  readonly now?: () => number;
}

export function createMemoryDeliveryDedupe(options: MemoryDeliveryDedupeOptions = {}): DeliveryDedupe {
  const ttl = options.ttlMs ?? DEFAULT_LIFECYCLE_CONFIG.webhookDedupeTtlMs;
  const max = options.maxEntries ?? DEFAULT_LIFECYCLE_CONFIG.webhookDedupeMaxEntries;
  const now = options.now ?? Date.now;
  const seen = new Map<string, number>();
  return {
    async firstSeen(id) {
      const at = now();
      const expires = seen.get(id);
      if (expires !== undefined && expires > at) return false;
      seen.delete(id);
      seen.set(id, at + ttl);
      while (seen.size > max) {
        const oldest = seen.keys().next().value;
        if (oldest === undefined) break;
        seen.delete(oldest);
      }
      return true;
    },
    async forget(id) {
      seen.delete(id);
    },
  };
}
