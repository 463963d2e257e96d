/**
 * Reserve arithmetic: part of every window is kept back for higher classes, so a background
 * flood can never starve the lifecycle poller (which must keep seeing CI state) or an agent's
 * interactive `gh` call. The floor a class may not dip below is a fraction of GitHub's limit:
 *
 *   lifecycle   → 0                              (may use everything)
 *   interactive → limit × reserve.lifecycle
 *   write       → limit × (lifecycle + interactive)
 *   background  → limit × (lifecycle + interactive)
 *
 * Writes sit with background because docs/architecture.md ("Policies") keeps the reserve "for the lifecycle poller and
 * interactive calls"; a write still has priority over background in the upstream queue.
 */
import type { PriorityClass } from "../../pipeline/types.js";

export interface ReserveFractions {
  /** Share of each window kept for the lifecycle poller. @defaultValue 0.1 */
  readonly lifecycle: number;
  /** Further share kept for interactive agent reads. @defaultValue 0.05 */
  readonly interactive: number;
}

/** The fraction of the limit that requests of class `priority` must leave untouched. */
export function reserveFraction(priority: PriorityClass, reserve: ReserveFractions): number {
  switch (priority) {
    case "lifecycle":
      return 0;
    case "interactive":
      return reserve.lifecycle;
    default:
      return reserve.lifecycle + reserve.interactive;
  }
}

/** Points (or requests) of a window of `limit` that class `priority` may not spend. */
export function reserveFloor(limit: number, priority: PriorityClass, reserve: ReserveFractions): number {
  return Math.floor(limit * reserveFraction(priority, reserve));
}

/** Lifecycle work is exempt from per-session fair share: it has its own reserve instead. */
export function isFairShareExempt(priority: PriorityClass): boolean {
  return priority === "lifecycle";
}
