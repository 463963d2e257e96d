/**
 * GitHub's secondary rate limits (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits):
 * at most 100 concurrent requests; 900 points per minute for REST (per endpoint, as docs/architecture.md
 * states it) and 2,000 for GraphQL, where a GET/query is 1 point and a write/mutation 5; 80
 * content-creating requests per minute and 500 per hour. Sliding windows.
 *
 * A refused request is not counted (it did no work), and the answer carries the seconds until
 * enough of the window has drained for it to fit (`retry-after`). Pure: `now` is a parameter.
 */

export interface SecondaryLimitsConfig {
  /** @defaultValue 100 */
  readonly concurrent: number;
  /** Per REST endpoint. @defaultValue 900 */
  readonly restPointsPerMinute: number;
  /** @defaultValue 2000 */
  readonly graphqlPointsPerMinute: number;
  /** @defaultValue 80 */
  readonly contentCreationPerMinute: number;
  /** @defaultValue 500 */
  readonly contentCreationPerHour: number;
  /**
   * Length of the limits' minute, ms; the hour is 60 of them. Shorter only to compress time in
   * tests (the broker's `queue.pacing.secondaryMinuteMs` must match). @defaultValue 60000
   */
  readonly minuteMs: number;
}

export const DEFAULT_SECONDARY_LIMITS: SecondaryLimitsConfig = {
  concurrent: 100,
  restPointsPerMinute: 900,
  graphqlPointsPerMinute: 2000,
  contentCreationPerMinute: 80,
  contentCreationPerHour: 500,
  minuteMs: 60_000,
};

export interface SecondaryRequest {
  readonly kind: "rest" | "graphql";
  /** REST route template (e.g. `GET /repos/{owner}/{repo}/pulls`); ignored for GraphQL. */
  readonly endpoint: string;
  readonly points: number;
  readonly createsContent: boolean;
}

export type SecondaryVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly retryAfterS: number; readonly reason: string };

/** A sliding window of (time, amount) entries with a running sum. */
class SlidingWindow {
  private readonly entries: { t: number; n: number }[] = [];
  private head = 0;
  private sum = 0;
  private readonly spanMs: number;

  constructor(spanMs: number) {
    this.spanMs = spanMs;
  }

  private drain(now: number): void {
    while (
      this.head < this.entries.length &&
      (this.entries[this.head] as { t: number }).t <= now - this.spanMs
    ) {
      this.sum -= (this.entries[this.head] as { n: number }).n;
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries.splice(0, this.head);
      this.head = 0;
    }
  }

  /** Seconds until `amount` more fits under `limit`, or 0 when it fits now. */
  waitFor(amount: number, limit: number, now: number): number {
    this.drain(now);
    let excess = this.sum + amount - limit;
    if (excess <= 0) return 0;
    for (let i = this.head; i < this.entries.length; i++) {
      const entry = this.entries[i] as { t: number; n: number };
      excess -= entry.n;
      if (excess <= 0) return Math.max(1, Math.ceil((entry.t + this.spanMs - now) / 1000));
    }
    return Math.ceil(this.spanMs / 1000);
  }

  add(amount: number, now: number): void {
    this.entries.push({ t: now, n: amount });
    this.sum += amount;
  }
}

export class SecondaryLimits {
  private readonly config: SecondaryLimitsConfig;
  private inFlight = 0;
  private readonly rest = new Map<string, SlidingWindow>();
  private graphql: SlidingWindow;
  private contentMinute: SlidingWindow;
  private contentHour: SlidingWindow;

  constructor(config: SecondaryLimitsConfig) {
    this.config = config;
    this.graphql = new SlidingWindow(config.minuteMs);
    this.contentMinute = new SlidingWindow(config.minuteMs);
    this.contentHour = new SlidingWindow(60 * config.minuteMs);
  }

  /** Enters a request; false when it would exceed the concurrency limit (then do not `leave`). */
  enter(): boolean {
    if (this.inFlight >= this.config.concurrent) return false;
    this.inFlight++;
    return true;
  }

  leave(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
  }

  get concurrent(): number {
    return this.inFlight;
  }

  /** Checks and, when allowed, records the request's points. */
  admit(request: SecondaryRequest, now: number): SecondaryVerdict {
    let window: SlidingWindow;
    let limit: number;
    if (request.kind === "graphql") {
      window = this.graphql;
      limit = this.config.graphqlPointsPerMinute;
    } else {
      window = this.rest.get(request.endpoint) ?? new SlidingWindow(this.config.minuteMs);
      this.rest.set(request.endpoint, window);
      limit = this.config.restPointsPerMinute;
    }
    const waits = [window.waitFor(request.points, limit, now)];
    if (request.createsContent) {
      waits.push(this.contentMinute.waitFor(1, this.config.contentCreationPerMinute, now));
      waits.push(this.contentHour.waitFor(1, this.config.contentCreationPerHour, now));
    }
    const wait = Math.max(...waits);
    if (wait > 0) {
      const reason = waits[0] === wait ? `${request.kind} points per minute` : "content creation";
      return { ok: false, retryAfterS: wait, reason };
    }
    window.add(request.points, now);
    if (request.createsContent) {
      this.contentMinute.add(1, now);
      this.contentHour.add(1, now);
    }
    return { ok: true };
  }

  reset(): void {
    this.rest.clear();
    this.graphql = new SlidingWindow(this.config.minuteMs);
    this.contentMinute = new SlidingWindow(this.config.minuteMs);
    this.contentHour = new SlidingWindow(60 * this.config.minuteMs);
  }
}
