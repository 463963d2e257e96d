/**
 * Served-data staleness, measured rather than guessed: the simulator knows the truth at every
 * instant, so for each fact an answer states ("PR 12's checks are build:completed:success, ..."),
 * we look up when the truth last held that value. If it still holds, the answer is current (0 ms);
 * otherwise the answer is stale by the time since the truth moved away from it.
 *
 * A FactHistory keeps, per fact key, the sequence of (time, value) the truth went through; values
 * are canonical strings (see facts.ts). Times are the simulator's clock (epoch ms). Pure.
 */

export interface FactPoint {
  readonly at: number;
  readonly value: string;
}

export type StalenessVerdict =
  | { readonly kind: "current" }
  | { readonly kind: "stale"; readonly staleMs: number }
  /** The answered value never was the truth in the recorded history (or no history yet). */
  | { readonly kind: "unknown" };

/** Judges one answered value against a history sorted by time. */
export function judgeStaleness(
  history: readonly FactPoint[],
  answered: string,
  at: number,
): StalenessVerdict {
  let i = history.length - 1;
  while (i >= 0 && (history[i] as FactPoint).at > at) i--;
  if (i < 0) return { kind: "unknown" };
  if ((history[i] as FactPoint).value === answered) return { kind: "current" };
  for (let j = i - 1; j >= 0; j--) {
    if ((history[j] as FactPoint).value === answered) {
      const movedAt = (history[j + 1] as FactPoint).at;
      return { kind: "stale", staleMs: Math.max(0, at - movedAt) };
    }
  }
  return { kind: "unknown" };
}

/** Truth histories per fact key; appends only real changes, keeps each history sorted by time. */
export class FactHistory {
  readonly #byKey = new Map<string, FactPoint[]>();

  /** Records that `key` held `value` from `at` on. Returns true when that was a change. */
  record(key: string, at: number, value: string): boolean {
    let list = this.#byKey.get(key);
    if (!list) {
      list = [];
      this.#byKey.set(key, list);
    }
    // Timed simulator events may be applied late but are stamped at their scheduled instant.
    let index = list.length;
    while (index > 0 && (list[index - 1] as FactPoint).at > at) index--;
    const before = list[index - 1];
    if (before && before.value === value) return false;
    list.splice(index, 0, { at, value });
    return true;
  }

  /** The value `key` held at `at`, if recorded. */
  valueAt(key: string, at: number): string | undefined {
    const list = this.#byKey.get(key) ?? [];
    let value: string | undefined;
    for (const point of list) {
      if (point.at > at) break;
      value = point.value;
    }
    return value;
  }

  judge(key: string, answered: string, at: number): StalenessVerdict {
    return judgeStaleness(this.#byKey.get(key) ?? [], answered, at);
  }

  /**
   * The index of the newest point at or before `at` whose value is `answered` — how far into the
   * key's history an answer had caught up — or -1 when the value never held by then.
   */
  caughtUpTo(key: string, answered: string, at: number): number {
    const list = this.#byKey.get(key) ?? [];
    let i = list.length - 1;
    while (i >= 0 && (list[i] as FactPoint).at > at) i--;
    for (; i >= 0; i--) if ((list[i] as FactPoint).value === answered) return i;
    return -1;
  }

  /** The recorded points of `key`, oldest first. */
  points(key: string): readonly FactPoint[] {
    return this.#byKey.get(key) ?? [];
  }

  has(key: string): boolean {
    return this.#byKey.has(key);
  }

  get size(): number {
    return this.#byKey.size;
  }
}
