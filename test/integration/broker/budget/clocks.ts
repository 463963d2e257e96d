/**
 * Test clocks for the budget gate. A sped-up clock lets a test live through several GitHub
 * windows in seconds: its time runs `speed` times faster than real time, and its sleeps are
 * correspondingly shorter. A manual clock stands still until the test moves it.
 */
import { performance } from "node:perf_hooks";
import { setTimeout as delay } from "node:timers/promises";
import type { BudgetClock } from "../../../../broker/budget/index.js";

async function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  await delay(Math.max(0, ms), undefined, signal ? { signal } : undefined);
}

export function spedUpClock(speed: number, start = Date.now()): BudgetClock {
  const t0 = performance.now();
  return {
    now: () => Math.floor(start + (performance.now() - t0) * speed),
    sleep: (ms, signal) => realSleep(ms / speed, signal),
  };
}

export interface ManualClock extends BudgetClock {
  advance(ms: number): void;
  set(epochMs: number): void;
}

/** Stands still; sleeps last 2 ms of real time so waiting loops keep turning. */
export function manualClock(start = 1_700_000_000_000): ManualClock {
  let now = start;
  return {
    now: () => now,
    sleep: (_ms, signal) => realSleep(2, signal),
    advance: (ms) => {
      now += ms;
    },
    set: (epochMs) => {
      now = epochMs;
    },
  };
}
