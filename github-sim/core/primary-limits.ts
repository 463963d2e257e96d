/**
 * GitHub's primary rate limits (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api
 * and https://docs.github.com/en/graphql/overview/rate-limits-and-node-limits-for-the-graphql-api):
 * one fixed window per resource that starts at the first charged request and lasts the window
 * length; `used` counts within it; at the reset instant the next charge opens a new window.
 *
 * Invariants: `remaining = max(0, limit - used)`; a charge that does not fit is refused and
 * changes nothing; `reset` is in epoch seconds, rounded up so a client waiting until `reset`
 * always finds the new window. Pure: `now` is always a parameter.
 */

export type PrimaryResource = "core" | "graphql" | "search";

export interface PrimarySnapshot {
  readonly resource: PrimaryResource;
  readonly limit: number;
  readonly remaining: number;
  readonly used: number;
  /** Epoch seconds at which the window resets. */
  readonly reset: number;
}

export interface PrimaryLimitsOptions {
  /** Points/requests per window. */
  readonly limits: Readonly<Record<PrimaryResource, number>>;
  /** Window length per resource, ms. */
  readonly windowMs: Readonly<Record<PrimaryResource, number>>;
}

interface Window {
  start: number;
  used: number;
}

export interface ChargeResult {
  readonly ok: boolean;
  readonly snapshot: PrimarySnapshot;
}

export class PrimaryLimits {
  private readonly options: PrimaryLimitsOptions;
  private readonly windows = new Map<PrimaryResource, Window>();

  constructor(options: PrimaryLimitsOptions) {
    this.options = options;
  }

  private current(resource: PrimaryResource, now: number): Window | undefined {
    const window = this.windows.get(resource);
    if (window && now < window.start + this.options.windowMs[resource]) return window;
    return undefined;
  }

  snapshot(resource: PrimaryResource, now: number): PrimarySnapshot {
    const limit = this.options.limits[resource];
    const window = this.current(resource, now);
    const used = window?.used ?? 0;
    const end = (window?.start ?? now) + this.options.windowMs[resource];
    return { resource, limit, used, remaining: Math.max(0, limit - used), reset: Math.ceil(end / 1000) };
  }

  /** Charges `cost` if it fits in the current window (opening one if needed). */
  charge(resource: PrimaryResource, cost: number, now: number): ChargeResult {
    let window = this.current(resource, now);
    const limit = this.options.limits[resource];
    if ((window?.used ?? 0) + cost > limit) {
      return { ok: false, snapshot: this.snapshot(resource, now) };
    }
    if (!window) {
      window = { start: now, used: 0 };
      this.windows.set(resource, window);
    }
    window.used += cost;
    return { ok: true, snapshot: this.snapshot(resource, now) };
  }

  /** Marks the window spent without charging a request ("budget spent earlier than headers said"). */
  exhaust(resource: PrimaryResource, now: number): void {
    const window = this.current(resource, now) ?? { start: now, used: 0 };
    window.used = this.options.limits[resource];
    this.windows.set(resource, window);
  }

  reset(): void {
    this.windows.clear();
  }
}
