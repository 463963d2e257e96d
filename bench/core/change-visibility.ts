/**
 * Per-change visibility: from a change in the world until every agent that reads the fact has seen
 * it. A p99 over answers lets a rare stale answer hide among many unchanged ones; this figure is
 * weighted by changes instead. For each (reader, fact key) the tracker keeps how far into the key's
 * truth history the reader has caught up (core/staleness.ts `caughtUpTo`); a later answer that
 * catches up further "sees" every change in between, each after (answer time − change time). A
 * change's figure is the slowest reader's; a reader that read the fact after a change but never
 * caught up counts until its last read of the fact (a lower bound, never dropped).
 *
 * Only changes inside the measured window count, and only readers that had read the fact before
 * (an agent that starts reading a fact late did not wait for its old changes). Pure.
 */
import type { FactHistory } from "./staleness.js";

interface ReaderState {
  /** Index into the key's history the reader has seen up to. */
  caughtUp: number;
  /** Simulated time of its latest read of the key. */
  lastReadAt: number;
}

export class ChangeVisibility {
  readonly #history: FactHistory;
  /** key → reader → state */
  readonly #readers = new Map<string, Map<string, ReaderState>>();
  /** "key@index" → slowest reader's delay so far (ms, the truth's clock). */
  readonly #delays = new Map<string, number>();
  readonly #windowStart: number;

  constructor(history: FactHistory, windowStart: number) {
    this.#history = history;
    this.#windowStart = windowStart;
  }

  /** One answer of `reader` stated `value` for `key` at `at`. */
  observe(reader: string, key: string, value: string, at: number): void {
    const index = this.#history.caughtUpTo(key, value, at);
    let byReader = this.#readers.get(key);
    if (!byReader) {
      byReader = new Map();
      this.#readers.set(key, byReader);
    }
    const state = byReader.get(reader);
    if (index < 0) return; // a value that never was the truth: counted as unknown elsewhere
    if (!state) {
      byReader.set(reader, { caughtUp: index, lastReadAt: at });
      return;
    }
    const points = this.#history.points(key);
    for (let i = state.caughtUp + 1; i <= index; i++) {
      const change = points[i];
      if (!change || change.at < this.#windowStart) continue;
      const id = `${key}@${i}`;
      this.#delays.set(id, Math.max(this.#delays.get(id) ?? 0, Math.max(0, at - change.at)));
    }
    state.caughtUp = Math.max(state.caughtUp, index);
    state.lastReadAt = at;
  }

  /** Every change's delay (ms), counting readers still behind at `end` until `end`. */
  delays(end: number): number[] {
    const delays = new Map(this.#delays);
    for (const [key, byReader] of this.#readers) {
      const points = this.#history.points(key);
      for (const state of byReader.values()) {
        for (let i = state.caughtUp + 1; i < points.length; i++) {
          const change = points[i];
          // Behind only on changes it read after (it asked, and was told old news).
          if (!change || change.at < this.#windowStart || change.at > state.lastReadAt || change.at > end)
            continue;
          // It was told old news until its last read; a reader that stopped reading (its phase
          // moved on) is not waiting any more, so the window's end would overstate it.
          const id = `${key}@${i}`;
          delays.set(id, Math.max(delays.get(id) ?? 0, Math.min(end, state.lastReadAt) - change.at));
        }
      }
    }
    return [...delays.values()];
  }
}
