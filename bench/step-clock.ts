/**
 * A step's compressed clock: simulated durations become wall-clock timers divided by the scale.
 * Sleeps are abortable so a step stops every session at once; an aborted sleep rejects with
 * StepStopped, which session loops treat as "the step is over", never as a failure.
 */

export class StepStopped extends Error {
  constructor() {
    super("step stopped");
    this.name = "StepStopped";
  }
}

export function isStepStopped(error: unknown): boolean {
  return error instanceof StepStopped;
}

export class StepClock {
  readonly scale: number;
  readonly #startedAt = performance.now();

  constructor(scale: number) {
    this.scale = scale;
  }

  /** Simulated ms since the step began. */
  simElapsedMs(): number {
    return (performance.now() - this.#startedAt) * this.scale;
  }

  sleep(simMs: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(new StepStopped());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        },
        Math.max(0, simMs / this.scale),
      );
      const onAbort = () => {
        clearTimeout(timer);
        reject(new StepStopped());
      };
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}
