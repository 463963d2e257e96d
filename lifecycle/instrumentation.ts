/**
 * An optional seam for whoever runs the lifecycle to observe it (the broker turns these into a
 * span per cycle with guard and batch children, and cycle metrics). lifecycle/ imports no
 * telemetry itself; without instrumentation every hook is a plain call.
 */
import type { CycleReport } from "./cycle-report.js";

export interface LifecycleInstrumentation {
  /** Wraps one poll cycle. */
  cycle<T>(info: { readonly sessions: number; readonly prs: number }, run: () => Promise<T>): Promise<T>;
  /** Wraps a step of a cycle: the REST guards, or the GraphQL batches (detection and enrichment). */
  step<T>(step: "guard" | "batch", run: () => Promise<T>): Promise<T>;
  /** Called with each finished cycle's report. */
  cycleDone(report: CycleReport): void;
}

export const NO_INSTRUMENTATION: LifecycleInstrumentation = {
  cycle: (_info, run) => run(),
  step: (_step, run) => run(),
  cycleDone: () => undefined,
};
