/**
 * The response cache for the composition root. A Redis reconnect may have hidden invalidations
 * published while this broker was cut off, so the in-process tier is dropped each time Redis is
 * healthy again.
 */
import type { BrokerContext } from "../broker-context.js";
import type { BrokerRedis } from "../redis/start-redis.js";
import { ResponseCache } from "./response-cache.js";

export async function startResponseCache(context: BrokerContext, r: BrokerRedis): Promise<ResponseCache> {
  const { config } = context;
  const cache = new ResponseCache({
    redis: r.redis,
    prefix: r.prefix,
    maxBytes: config.cache.maxBytes,
    maxEntryBytes: config.cache.maxEntryBytes,
    retainSeconds: config.cache.retainSeconds,
    localBytes: config.cache.localBytes,
    pubsub: r.pubsub,
  });
  r.health.onChange((healthy) => {
    if (healthy) cache.clearLocal();
  });
  await cache.start();
  context.shutdown.add("response cache", () => cache.close(), r.stepTimeout());
  return cache;
}
