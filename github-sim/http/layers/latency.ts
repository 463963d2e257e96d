/**
 * Simulated network and server time: every answer waits `latencyMs` plus a uniform random
 * `[0, jitterMs)` before it is computed, so it reflects the world when it is sent. Zero by
 * default: the simulator must never be a benchmark's bottleneck.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { SimLayer } from "../types.js";

export interface LatencyOptions {
  /** @defaultValue 0 */
  readonly latencyMs: number;
  /** @defaultValue 0 */
  readonly jitterMs: number;
  /** Uniform [0, 1). @defaultValue Math.random */
  readonly random: () => number;
}

export function latencyLayer(options: LatencyOptions): SimLayer {
  return (next) => async (request) => {
    const delay = options.latencyMs + (options.jitterMs > 0 ? options.random() * options.jitterMs : 0);
    if (delay > 0) await sleep(delay);
    return next(request);
  };
}
