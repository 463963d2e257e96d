/**
 * A GitHub primary rate-limit bucket as GitHub (and github-sim) keeps it: a fixed window that
 * starts at the first request after the previous one ended, `limit` points per window, and a
 * report of the bucket on every answer. A request that finds the bucket spent is refused, as
 * GitHub would with a 403 / RATE_LIMITED: the fairness test asserts that this never happens.
 */
import type { BudgetClock } from "../../../../broker/budget/index.js";
import type { RateLimitSnapshot } from "../../../../github/index.js";

export class GitHubBucket {
  readonly limit: number;
  readonly windowMs: number;
  readonly #clock: BudgetClock;
  readonly resource: string;
  #used = 0;
  #resetAt = 0;
  refused = 0;
  charged = 0;

  constructor(options: { limit: number; windowMs: number; clock: BudgetClock; resource?: string }) {
    this.limit = options.limit;
    this.windowMs = options.windowMs;
    this.#clock = options.clock;
    this.resource = options.resource ?? "graphql";
  }

  /** Charges `cost` if the bucket can pay; returns the report GitHub would send either way. */
  charge(cost: number): { ok: boolean; report: RateLimitSnapshot; windowIndex: number } {
    const now = this.#clock.now();
    if (now >= this.#resetAt) {
      this.#used = 0;
      this.#resetAt = now + this.windowMs;
    }
    const ok = this.#used + cost <= this.limit;
    if (ok) {
      this.#used += cost;
      this.charged += cost;
    } else {
      this.refused += 1;
    }
    return { ok, report: this.report(), windowIndex: Math.floor(this.#resetAt / this.windowMs) };
  }

  report(): RateLimitSnapshot {
    return {
      resource: this.resource,
      limit: this.limit,
      remaining: this.limit - this.#used,
      used: this.#used,
      reset: Math.ceil(this.#resetAt / 1000),
    };
  }
}
