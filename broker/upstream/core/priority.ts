/**
 * Upstream priorities: lifecycle > interactive agent reads > agent writes > background, mapped to
 * BullMQ priorities (lower runs first). Starvation-free by aging: a job that has waited longer
 * than its class's bound is promoted to the top priority, behind only what is already there, so
 * under any backlog a background job runs within (aging bound + one turn of the queue).
 */
import type { PriorityClass } from "../../pipeline/types.js";

export const BULLMQ_PRIORITY: Readonly<Record<PriorityClass, number>> = {
  lifecycle: 1,
  interactive: 2,
  write: 3,
  background: 4,
};

/** What an aged job is promoted to. */
export const AGED_PRIORITY = 1;

export type AgingBounds = Readonly<Partial<Record<PriorityClass, number>>>;

/** Epoch ms at which a job of `priority` enqueued at `enqueuedAt` is promoted; undefined = never needs it. */
export function promoteAt(
  priority: PriorityClass,
  enqueuedAt: number,
  bounds: AgingBounds,
): number | undefined {
  if (BULLMQ_PRIORITY[priority] <= AGED_PRIORITY) return undefined;
  const bound = bounds[priority];
  return bound === undefined ? undefined : enqueuedAt + bound;
}
