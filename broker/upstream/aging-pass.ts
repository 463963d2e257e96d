/**
 * Starvation-free priorities: jobs are entered in a ZSET with the time their class's aging bound
 * runs out; every tick ONE broker (a short Redis lock) promotes the due ones, oldest first, to
 * BullMQ's plain wait list (core/priority.ts AGED_PRIORITY), which runs before every prioritised
 * job in the order the jobs aged. So under any backlog a low-priority job runs within its bound
 * plus a tick plus the aged jobs older than it. Jobs that started meanwhile are taken out of the
 * ZSET by the worker.
 */
import type { Redis } from "ioredis";
import { AGED_PRIORITY } from "./core/priority.js";
import type { Lane } from "./upstream-job.js";
import type { UpstreamKeys } from "./upstream-keys.js";

export interface AgingPassOptions {
  readonly redis: Redis;
  readonly keys: UpstreamKeys;
  readonly instanceId: string;
  readonly tickMs: number;
  readonly changePriority: (lane: Lane, id: string, priority: number) => Promise<void>;
}

export function agingMember(lane: Lane, id: string): string {
  return `${lane}:${id}`;
}

/** One pass; returns how many jobs it promoted (0 when another broker holds this tick). */
export async function promoteAgedJobs(options: AgingPassOptions): Promise<number> {
  const { redis, keys } = options;
  const lock = await redis.set(keys.agingLock, options.instanceId, "PX", options.tickMs, "NX");
  if (lock !== "OK") return 0;
  const due = await redis.zrangebyscore(keys.aging, "-inf", Date.now(), "LIMIT", 0, 100);
  let promoted = 0;
  for (const member of due) {
    const [lane, id] = member.split(":") as [Lane, string];
    try {
      await options.changePriority(lane, id, AGED_PRIORITY);
      promoted++;
    } catch {
      // finished or removed meanwhile
    }
    await redis.zrem(keys.aging, member);
  }
  return promoted;
}
