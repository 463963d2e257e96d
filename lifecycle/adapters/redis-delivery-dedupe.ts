/**
 * Webhook delivery ids in Redis (`SET key NX PX ttl`), shared by every broker behind one webhook
 * URL: the first broker to see a delivery processes it, the others acknowledge it.
 */
import type { Redis } from "ioredis";
import { DEFAULT_LIFECYCLE_CONFIG } from "../config.js";
import type { DeliveryDedupe } from "../delivery-dedupe.js";

export interface RedisDeliveryDedupeOptions {
  readonly client: Redis;
  /** @defaultValue "aob" */
  readonly keyPrefix?: string;
  /** @defaultValue 86_400_000 */
  readonly ttlMs?: number;
}

export function createRedisDeliveryDedupe(options: RedisDeliveryDedupeOptions): DeliveryDedupe {
  const prefix = `${options.keyPrefix ?? "aob"}:{lifecycle}:delivery:`;
  const ttl = options.ttlMs ?? DEFAULT_LIFECYCLE_CONFIG.webhookDedupeTtlMs;
  return {
    async firstSeen(id) {
      return (await options.client.set(prefix + id, "1", "PX", ttl, "NX")) === "OK";
    },
    async forget(id) {
      await options.client.del(prefix + id);
    },
  };
}
