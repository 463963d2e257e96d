/**
 * Time, injected: the service reads `now()` and schedules through `setTimeout`, so tests drive it
 * deterministically (a manual clock) and production uses the system clock.
 */
export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => {
    const timer = setTimeout(callback, ms);
    timer.unref?.();
    return { cancel: () => clearTimeout(timer) };
  },
};

/** A clock that moves only when told to; timers fire from advance(). For tests and benches. */
export interface ManualClock extends Clock {
  advance(ms: number): void;
  set(now: number): void;
}

export function createManualClock(start = Date.UTC(2026, 3, 1)): ManualClock {
  let current = start;
  let nextId = 0;
  const timers = new Map<number, { at: number; callback: () => void }>();
  const fire = () => {
    for (;;) {
      const due = [...timers.entries()]
        .filter(([, t]) => t.at <= current)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) return;
      timers.delete(due[0]);
      due[1].callback();
    }
  };
  return {
    now: () => current,
    setTimeout: (callback, ms) => {
      const id = nextId++;
      timers.set(id, { at: current + Math.max(0, ms), callback });
      return { cancel: () => timers.delete(id) };
    },
    advance: (ms) => {
      current += ms;
      fire();
    },
    set: (now) => {
      current = now;
      fire();
    },
  };
}
