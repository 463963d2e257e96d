/**
 * The broker's shutdown: every component registers how it stops as it starts, and stopping runs
 * those steps in reverse order (the gateway stops taking requests before the queue and Redis it
 * needs go away). Each step gets a deadline: a step that waits on something gone (Redis killed
 * under the broker, a collector that never answers) is logged by name and left behind, so SIGTERM
 * always ends the daemon instead of hanging it until someone sends SIGKILL.
 */
import type { Logger } from "../common/index.js";

interface ShutdownStep {
  readonly name: string;
  readonly stop: () => Promise<unknown> | unknown;
  readonly timeoutMs: number | (() => number);
}

export class ShutdownSequence {
  readonly #steps: ShutdownStep[] = [];
  readonly #stepTimeoutMs: number;
  readonly #logger: Logger;

  constructor(options: { stepTimeoutMs: number; logger: Logger }) {
    this.#stepTimeoutMs = options.stepTimeoutMs;
    this.#logger = options.logger;
  }

  /**
   * `timeoutMs` for a step with a grace period of its own (the gateway drains in-flight requests),
   * or a function read when the step runs (a step that talks to Redis need not wait long for a
   * Redis known to be gone).
   */
  add(
    name: string,
    stop: () => Promise<unknown> | unknown,
    timeoutMs: number | (() => number) = this.#stepTimeoutMs,
  ): void {
    this.#steps.push({ name, stop, timeoutMs });
  }

  /** Runs the steps last-added first, at most once each; returns the names of those that overran. */
  async run(): Promise<string[]> {
    const overran: string[] = [];
    for (let step = this.#steps.pop(); step; step = this.#steps.pop()) {
      const timeoutMs = typeof step.timeoutMs === "number" ? step.timeoutMs : step.timeoutMs();
      const outcome = await this.#runStep(step, timeoutMs);
      if (outcome === "timeout") {
        overran.push(step.name);
        this.#logger.warn(
          { step: step.name, timeoutMs },
          "a shutdown step did not finish in time; going on without it",
        );
      }
    }
    return overran;
  }

  async #runStep(step: ShutdownStep, timeoutMs: number): Promise<"done" | "timeout"> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    const work = (async () => {
      try {
        await step.stop();
      } catch (error) {
        this.#logger.warn({ err: error, step: step.name }, "error while stopping");
      }
      return "done" as const;
    })();
    try {
      return await Promise.race([work, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }
}
