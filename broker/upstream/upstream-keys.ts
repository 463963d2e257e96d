/**
 * Redis names of the upstream queue. Everything is under the hash tag `{<prefix>:up}` (BullMQ's
 * own keys included, through its `prefix` option), so a Redis Cluster keeps one queue in one slot.
 * Reply channels are pub/sub names, not keys.
 */
export interface UpstreamKeys {
  /** BullMQ `prefix`. */
  readonly bullPrefix: string;
  /** Global pause (epoch ms) after a secondary limit. */
  readonly pause: string;
  block(resource: string): string;
  points(endpoint: string): string;
  readonly contentPerMinute: string;
  readonly contentPerHour: string;
  /** ZSET endpoint → epoch ms of its last request sent (takePace-7.lua), for the views. */
  readonly endpoints: string;
  /** HASH job id → what it waits for ("code|session|endpoint|until|since"), for the views. */
  readonly waits: string;
  /** Epoch ms of the last mutation sent (startWrite-2.lua). */
  readonly lastMutation: string;
  /** ZSET "<lane>:<jobId>" → when to promote it. */
  readonly aging: string;
  readonly agingLock: string;
  /** A write began sending (never send it again). */
  started(jobId: string): string;
  /** A finished job's reply, kept until its submitter takes it. */
  result(jobId: string): string;
  /** Counter of fresh pauses (for status). */
  readonly pauses: string;
  replyChannel(instanceId: string): string;
}

export function upstreamKeys(prefix: string): UpstreamKeys {
  const tag = `{${prefix}:up}`;
  return {
    bullPrefix: tag,
    pause: `${tag}:pause`,
    block: (resource) => `${tag}:block:${resource}`,
    points: (endpoint) => `${tag}:points:${endpoint}`,
    contentPerMinute: `${tag}:content:minute`,
    contentPerHour: `${tag}:content:hour`,
    endpoints: `${tag}:endpoints`,
    waits: `${tag}:waits`,
    lastMutation: `${tag}:mutation:last`,
    aging: `${tag}:aging`,
    agingLock: `${tag}:aging:lock`,
    started: (jobId) => `${tag}:started:${jobId}`,
    result: (jobId) => `${tag}:result:${jobId}`,
    pauses: `${tag}:stats:pauses`,
    replyChannel: (instanceId) => `${prefix}:up:reply:${instanceId}`,
  };
}
