/**
 * Counts recent GraphQL submissions by session, so the scheduler can tell whether a first-time
 * read is likely to meet another session's query within a hold (core/partner-hold.ts). Only
 * agents' submissions are observed (not the lifecycle's nor the broker's refreshes, which come in
 * bursts of their own at each poll cycle). Bounded: arrivals older than the window are dropped,
 * and beyond maxEntries the oldest go first (a broker that busy has partners anyway). Holds
 * session ids and times only.
 */

export interface ArrivalTrackerOptions {
  readonly windowMs: number;
  readonly maxEntries: number;
}

export class ArrivalTracker {
  readonly #windowMs: number;
  readonly #maxEntries: number;
  /** Arrivals in time order: a ring read from #head. */
  #times: number[] = [];
  #sessions: string[] = [];
  #head = 0;
  readonly #bySession = new Map<string, number>();

  constructor(options: ArrivalTrackerOptions) {
    this.#windowMs = options.windowMs;
    this.#maxEntries = Math.max(1, Math.floor(options.maxEntries));
  }

  observe(sessionId: string, now: number): void {
    this.#prune(now);
    this.#times.push(now);
    this.#sessions.push(sessionId);
    this.#bySession.set(sessionId, (this.#bySession.get(sessionId) ?? 0) + 1);
    while (this.size > this.#maxEntries) this.#dropOldest();
  }

  /** Arrivals within the window from sessions other than `sessionId`. */
  othersThan(sessionId: string | undefined, now: number): number {
    this.#prune(now);
    return this.size - (sessionId === undefined ? 0 : (this.#bySession.get(sessionId) ?? 0));
  }

  get size(): number {
    return this.#times.length - this.#head;
  }

  #prune(now: number): void {
    while (this.size > 0 && now - (this.#times[this.#head] ?? now) > this.#windowMs) this.#dropOldest();
    // Compact once the dropped prefix is large, so the arrays do not grow without bound.
    if (this.#head > 1024 && this.#head * 2 > this.#times.length) {
      this.#times = this.#times.slice(this.#head);
      this.#sessions = this.#sessions.slice(this.#head);
      this.#head = 0;
    }
  }

  #dropOldest(): void {
    const session = this.#sessions[this.#head];
    this.#head += 1;
    if (session === undefined) return;
    const left = (this.#bySession.get(session) ?? 1) - 1;
    if (left <= 0) this.#bySession.delete(session);
    else this.#bySession.set(session, left);
  }
}
