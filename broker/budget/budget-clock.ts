/**
 * Where the budget gate gets time from. By default it has no clock of its own: the Lua scripts
 * read Redis TIME, so every broker sharing the Redis agrees on when a window resets and when a
 * reservation expires, whatever their hosts' clocks say; waits are real timers. Tests inject a
 * clock (for example a sped-up one) and then every script is given that clock's time instead.
 */
import { setTimeout as delay } from "node:timers/promises";

export interface BudgetClock {
  /** Epoch ms. */
  now(): number;
  /** Resolves after `ms` of this clock's time; rejects or resolves early when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Real timers; `now` is only used when a clock is injected, so this one leaves time to Redis. */
export async function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  await delay(Math.max(0, ms), undefined, signal ? { signal } : undefined);
}
