/**
 * Whether the broker's Redis is usable right now, from the main connection's own events. The
 * pipeline asks this before touching anything that would otherwise wait for Redis to come back
 * (the budget gate, the BullMQ queue), so a Redis restart degrades the broker to its documented
 * fallback (local conservative budget, direct upstream, no shared cache) instead of stalling it.
 */
import type { Redis } from "ioredis";
import type { Logger } from "../../common/index.js";

export class RedisHealth {
  readonly #client: Redis;
  readonly #logger: Logger;
  #healthy: boolean;
  #since = Date.now();
  #outages = 0;
  readonly #listeners = new Set<(healthy: boolean) => void>();

  constructor(client: Redis, logger: Logger) {
    this.#client = client;
    this.#logger = logger;
    this.#healthy = client.status === "ready";
    client.on("ready", () => this.#set(true));
    client.on("close", () => this.#set(false));
    client.on("end", () => this.#set(false));
    client.on("reconnecting", () => this.#set(false));
    // ioredis emits "error" for every failed reconnect; without a listener Node would throw.
    client.on("error", () => undefined);
  }

  get healthy(): boolean {
    return this.#healthy && this.#client.status === "ready";
  }

  /** Outages seen since start, and since when the current state holds. */
  get outages(): number {
    return this.#outages;
  }

  get since(): number {
    return this.#since;
  }

  onChange(listener: (healthy: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #set(healthy: boolean): void {
    if (healthy === this.#healthy) return;
    this.#healthy = healthy;
    this.#since = Date.now();
    if (!healthy) this.#outages += 1;
    if (healthy) this.#logger.info("Redis is back: shared budget, cache and queue resume");
    else
      this.#logger.warn(
        "Redis unreachable: degraded to a local conservative budget and direct upstream calls",
      );
    for (const listener of this.#listeners) listener(healthy);
  }
}
