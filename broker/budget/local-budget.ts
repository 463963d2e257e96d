/**
 * The budget while Redis is unreachable. The shared, fair, atomic budget lives in Redis; without it
 * each broker must still keep the token out of trouble on its own, so it spends conservatively:
 * per resource, a token bucket refilled at HALF the even pace that would spend GitHub's last known
 * `remaining` by the reset (other brokers may be degraded too), never below one request a minute,
 * and nothing at all when GitHub last said the bucket is empty. Requests wait for a token until
 * their deadline, like the shared budget; past it they get the same rate-limit error.
 */
import { AoError } from "../../common/index.js";
import type { RateLimitResource, RateLimitSnapshot } from "../../github/index.js";
import { BUDGET_DEFAULTS } from "./budget-settings.js";
import { BudgetErrors } from "./index.js";

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export interface LocalBudgetOptions {
  /** @defaultValue 0.5 */
  readonly paceFraction?: number;
  /** @defaultValue 5 */
  readonly burst?: number;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

export class LocalBudget {
  readonly #snapshots = new Map<RateLimitResource, RateLimitSnapshot>();
  readonly #buckets = new Map<RateLimitResource, Bucket>();
  readonly #pace: number;
  readonly #burst: number;
  readonly #now: () => number;

  constructor(options: LocalBudgetOptions = {}) {
    this.#pace = options.paceFraction ?? BUDGET_DEFAULTS.local.paceFraction;
    this.#burst = options.burst ?? BUDGET_DEFAULTS.local.burst;
    this.#now = options.now ?? Date.now;
  }

  /** Remembers GitHub's latest numbers (from every answer, degraded or not). */
  observe(snapshot: RateLimitSnapshot): void {
    this.#snapshots.set(snapshot.resource, snapshot);
  }

  /** Tokens per millisecond for a resource, from the last snapshot. */
  rate(resource: RateLimitResource): number {
    const snapshot = this.#snapshots.get(resource);
    const minimum = 1 / 60_000;
    if (!snapshot) return 10 / 60_000;
    const untilReset = Math.max(60_000, snapshot.reset * 1000 - this.#now());
    if (snapshot.remaining <= 0 && snapshot.reset * 1000 > this.#now()) return 0;
    return Math.max(minimum, (snapshot.remaining * this.#pace) / untilReset);
  }

  /**
   * Waits for a token of `resource` (cost tokens) until the deadline. `yieldWhen` is asked before
   * every wait: when it turns true (Redis is back) the wait ends with `yielded` and no token, so
   * the caller can ask the shared budget instead of sitting out the slow local pace.
   */
  async admit(
    resource: RateLimitResource,
    cost: number,
    deadlineAt: number,
    yieldWhen?: () => boolean,
  ): Promise<{ waitedMs: number; yielded?: boolean }> {
    const started = this.#now();
    for (;;) {
      const now = this.#now();
      const rate = this.rate(resource);
      const bucket = this.#buckets.get(resource) ?? { tokens: this.#burst, updatedAt: now };
      bucket.tokens = Math.min(this.#burst, bucket.tokens + (now - bucket.updatedAt) * rate);
      bucket.updatedAt = now;
      this.#buckets.set(resource, bucket);
      const need = Math.min(Math.max(cost, 0), this.#burst);
      if (bucket.tokens >= need) {
        bucket.tokens -= need;
        return { waitedMs: now - started };
      }
      const snapshot = this.#snapshots.get(resource);
      const waitMs =
        rate > 0 ? (need - bucket.tokens) / rate : Math.max(1000, (snapshot?.reset ?? 0) * 1000 - now);
      if (now + waitMs > deadlineAt) {
        throw new AoError(
          BudgetErrors.AO_ERR_BUDGET_EXHAUSTED,
          `budget for ${resource} is held back while Redis is unreachable`,
          {
            httpStatus: 403,
            data: { resource, reset: snapshot?.reset, waitedMs: now - started, reason: "degraded" },
          },
        );
      }
      if (yieldWhen?.()) return { waitedMs: now - started, yielded: true };
      await new Promise((resolve) => setTimeout(resolve, Math.min(waitMs, 250)));
    }
  }
}
