/**
 * A Redis that comes back empty (restarted without persistence) lost every session and token. An
 * epoch key, set once with NX, tells such a Redis from one that kept its data: when Redis is healthy
 * again and the key is gone, the sessions and tokens this broker saw recently are put back
 * (CallerResolver.restoreInto), so agents already holding a token keep working. The check runs
 * when Redis turns healthy and whenever the resolver finds a token it knew gone (the returned
 * function): a request may reach the empty Redis before the health change is handled.
 */
import type { Redis } from "ioredis";
import type { Logger } from "../../common/index.js";
import type { RedisHealth } from "../redis/redis-health.js";
import type { CallerResolver } from "./caller-resolver.js";
import type { SessionStore } from "./session-store.js";

export interface DataLossWatch {
  readonly redis: Redis;
  readonly prefix: string;
  readonly health: RedisHealth;
  readonly resolver: CallerResolver;
  readonly store: SessionStore;
  readonly logger: Logger;
}

export async function restoreSessionsAfterDataLoss(watch: DataLossWatch): Promise<() => Promise<void>> {
  const { redis, health, resolver, store, logger } = watch;
  const epochKey = `${watch.prefix}:epoch`;
  await redis.set(epochKey, String(Date.now()), "NX");
  const restoreIfLost = async (): Promise<void> => {
    if (await redis.exists(epochKey)) return;
    // Every broker restores what it knows, whichever of them puts the epoch back first.
    await redis.set(epochKey, String(Date.now()), "NX");
    // Sessions used only over IPC are known to the store, not to the gateway's resolver.
    const restored = (await resolver.restoreInto(store)) + (await store.restoreKnown());
    logger.warn({ restored }, "Redis came back without its data: restored recently seen sessions and tokens");
  };
  // One check at a time: callers arriving meanwhile wait for the one in flight.
  let inFlight: Promise<void> | undefined;
  const check = (): Promise<void> => {
    inFlight ??= restoreIfLost()
      .catch((error: unknown) => logger.warn({ err: error }, "could not check Redis for data loss"))
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };
  health.onChange((healthy) => {
    if (healthy) void check();
  });
  return check;
}
