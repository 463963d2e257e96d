/**
 * Remembers which session sent which query recently, so the gateway can tell a polling loop
 * (`gh pr checks` every 10 s, an agent re-running `gh pr view`) from a first-time read: a repeat
 * may wait longer for batching partners (core/batch-class.ts). Bounded: entries older than the
 * window are forgotten, and beyond maxEntries the least recently seen go first. Keys hold a hash
 * of the query and variables, never the text.
 */
import { createHash } from "node:crypto";
import { BATCHING_DEFAULTS } from "./batch-settings.js";

export interface RepeatTrackerOptions {
  /** A query seen again within this long is a repeat, ms. @defaultValue 60_000 */
  readonly windowMs?: number;
  /** @defaultValue 10_000 */
  readonly maxEntries?: number;
}

export interface RepeatKeyInput {
  readonly sessionId: string;
  readonly query: string;
  readonly variables?: unknown;
  readonly operationName?: string | null | undefined;
}

export class RepeatTracker {
  readonly #windowMs: number;
  readonly #maxEntries: number;
  readonly #seen = new Map<string, number>();

  constructor(options: RepeatTrackerOptions = {}) {
    this.#windowMs = options.windowMs ?? BATCHING_DEFAULTS.repeatWindowMs;
    this.#maxEntries = Math.max(1, options.maxEntries ?? BATCHING_DEFAULTS.repeatMaxEntries);
  }

  /** Records this request at `now`; true when the same session sent it within the window. */
  observe(input: RepeatKeyInput, now: number): boolean {
    const digest = createHash("sha256")
      .update(input.query)
      .update("\u0000")
      .update(JSON.stringify(input.variables ?? null))
      .update("\u0000")
      .update(input.operationName ?? "")
      .digest("base64url");
    const key = `${input.sessionId}\u0000${digest}`;
    const last = this.#seen.get(key);
    this.#seen.delete(key);
    this.#seen.set(key, now);
    while (this.#seen.size > this.#maxEntries) {
      const oldest = this.#seen.keys().next().value;
      if (oldest === undefined) break;
      this.#seen.delete(oldest);
    }
    return last !== undefined && now - last <= this.#windowMs;
  }

  get size(): number {
    return this.#seen.size;
  }
}
