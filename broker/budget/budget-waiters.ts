/**
 * Callers waiting for budget, per resource. A waiter sleeps for at most the time it was given
 * and wakes early when any broker publishes "budget freed" for its resource (wake), when the gate
 * closes (wakeAll), or when its caller gives up (its signal). Waking is only a hint to look again:
 * the admission script decides, so a spurious wake costs one Redis call and nothing else.
 */
import { type BudgetClock, realSleep } from "./budget-clock.js";

export class BudgetWaiters {
  readonly #clock: BudgetClock | undefined;
  readonly #waiters = new Map<string, Set<() => void>>();

  constructor(clock: BudgetClock | undefined) {
    this.#clock = clock;
  }

  wake(resource: string): void {
    const set = this.#waiters.get(resource);
    if (!set) return;
    this.#waiters.delete(resource);
    for (const wake of set) wake();
  }

  wakeAll(): void {
    for (const set of this.#waiters.values()) for (const wake of set) wake();
    this.#waiters.clear();
  }

  /** Sleeps up to `ms` of the clock's time, ending early on a wake-up or the caller's signal. */
  async wait(resource: string, ms: number, signal: AbortSignal | undefined): Promise<void> {
    const timer = new AbortController();
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
    });
    let set = this.#waiters.get(resource);
    if (!set) {
      set = new Set();
      this.#waiters.set(resource, set);
    }
    set.add(wake);
    const onAbort = () => wake();
    signal?.addEventListener("abort", onAbort, { once: true });
    const sleep = (this.#clock ? this.#clock.sleep(ms, timer.signal) : realSleep(ms, timer.signal)).catch(
      () => undefined,
    );
    try {
      await Promise.race([sleep, woken]);
    } finally {
      timer.abort();
      this.#waiters.get(resource)?.delete(wake);
      signal?.removeEventListener("abort", onAbort);
    }
  }
}
