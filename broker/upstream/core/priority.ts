/**
 * Upstream priorities: lifecycle > interactive agent reads > agent writes > background, mapped to
 * BullMQ priorities (lower runs first). Starvation-free by aging: a job that has waited longer
 * than its class's bound is promoted ahead of every prioritised job, behind only jobs that aged
 * before it, so under any backlog a job runs within (aging bound + the aged jobs older than it).
 */
import type { PriorityClass } from "../../pipeline/types.js";

export const BULLMQ_PRIORITY: Readonly<Record<PriorityClass, number>> = {
  lifecycle: 1,
  interactive: 2,
  write: 3,
  background: 4,
};

/**
 * What an aged job is promoted to: BullMQ's priority 0 is its plain wait list, which workers
 * empty before they look at any prioritised job, first in first out. (Promoting to the front of
 * priority 1 instead ran aged jobs last-aged first: under a long backlog the oldest job starved.)
 */
export const AGED_PRIORITY = 0;

export type AgingBounds = Readonly<Partial<Record<PriorityClass, number>>>;

/** Epoch ms at which a job of `priority` enqueued at `enqueuedAt` is promoted; undefined = never needs it. */
export function promoteAt(
  priority: PriorityClass,
  enqueuedAt: number,
  bounds: AgingBounds,
): number | undefined {
  if (BULLMQ_PRIORITY[priority] === BULLMQ_PRIORITY.lifecycle) return undefined;
  const bound = bounds[priority];
  return bound === undefined ? undefined : enqueuedAt + bound;
}
