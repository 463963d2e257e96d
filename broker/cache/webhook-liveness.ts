/**
 * Whether webhooks are arriving (decision 0021), shared by every broker on the same Redis:
 * `p:wh:last` holds the time of the last delivery any broker received. While one came within
 * `liveMs`, webhooks are the primary signal: the cache layer lets a guard's vouch serve an answer
 * `stretch` times longer (the lifecycle stretches its guard intervals by the same factor), because
 * every change a delivery reports has moved its answers already. Once none has come for `liveMs`,
 * both return to normal.
 *
 * Reading it costs no round trip on the request path: `stretch()` answers from memory and, at most
 * once per `readEveryMs`, refreshes that memory from Redis in the background.
 */
import type { Redis } from "ioredis";

export interface WebhookLivenessOptions {
  readonly redis: Redis;
  readonly prefix: string;
  /** The factor while deliveries arrive (1: never stretch). */
  readonly stretch: number;
  /** Deliveries count as arriving until this long after the last one. */
  readonly liveMs: number;
  /** How often the shared time is read again. */
  readonly readEveryMs: number;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

export class WebhookLiveness {
  readonly #o: WebhookLivenessOptions;
  readonly #now: () => number;
  #last = 0;
  #readAt = Number.NEGATIVE_INFINITY;
  #reading = false;

  constructor(options: WebhookLivenessOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  get #key(): string {
    return `${this.#o.prefix}:wh:last`;
  }

  /** A delivery arrived now (this broker received it). */
  async noteDelivery(): Promise<void> {
    const now = this.#now();
    this.#last = Math.max(this.#last, now);
    await this.#redis.set(this.#key, String(now), "PX", Math.ceil(this.#o.liveMs));
  }

  get #redis(): Redis {
    return this.#o.redis;
  }

  /** The last delivery known here (epoch ms; 0: none). */
  get lastDeliveryAt(): number {
    return this.#last;
  }

  /** The vouch stretch in force now (1 when no delivery came within liveMs). */
  stretch(): number {
    const now = this.#now();
    if (this.#o.stretch <= 1) return 1;
    if (!this.#reading && now - this.#readAt >= this.#o.readEveryMs) {
      this.#reading = true;
      this.#readAt = now;
      this.#redis
        .get(this.#key)
        .then((value) => {
          if (value) this.#last = Math.max(this.#last, Number(value) || 0);
        })
        .catch(() => undefined)
        .finally(() => {
          this.#reading = false;
        });
    }
    return this.#last > 0 && now - this.#last < this.#o.liveMs ? this.#o.stretch : 1;
  }
}
