/**
 * The pipeline's way to GitHub, in the daemon: the shared BullMQ queue while Redis is healthy,
 * this broker's direct path (local limits) while it is not; every call in an upstream span.
 */

import type { BrokerObservability } from "../observability/observability.js";
import type { UpstreamPort } from "../pipeline/ports.js";
import type { RedisHealth } from "../redis/redis-health.js";
import type { DegradedUpstream } from "./degraded-upstream.js";
import type { UpstreamQueue } from "./index.js";

export interface UpstreamPortDeps {
  readonly queue: UpstreamQueue;
  readonly degraded: DegradedUpstream;
  readonly health: RedisHealth;
  readonly observability: BrokerObservability;
}

export function createUpstreamPort({
  queue,
  degraded,
  health,
  observability,
}: UpstreamPortDeps): UpstreamPort {
  return {
    send: (request) =>
      observability.traceUpstream(request, async () => {
        if (!health.healthy) return degraded.send(request);
        try {
          const result = await queue.submit(request);
          return {
            status: result.status,
            headers: result.headers,
            body: result.body,
            queueWaitMs: result.queueWaitMs,
            graphqlCost: result.graphqlCost,
          };
        } catch (error) {
          // The queue lives in Redis. If Redis went away under this read, send it directly; a
          // write's fate is the queue's to report (it never silently runs twice).
          if (health.healthy || request.mutation || !request.idempotent) throw error;
          return degraded.send(request);
        }
      }),
  };
}
