/**
 * Assembles the gateway's layers in their one order (prow's NewFromCache):
 *   cache → coalesce → cache fill → batch → budget → upstream
 * Cache first, so hits cost nothing and touch nothing else; the fill layer stores answers inside
 * the coalesced flight, so nothing slips in between an answer and its storing; coalescing before
 * batching and budget,
 * so identical requests are admitted once; batching before budget, so a merged query is admitted
 * once at its real (shared) cost; the upstream queue last.
 */

import type { Redis } from "ioredis";
import type { Logger } from "../../common/index.js";
import type { RefreshRegistry } from "../cache/refresh-registry.js";
import type { ResponseCache } from "../cache/response-cache.js";
import type { PubSubHub } from "../redis/pubsub-hub.js";
import { budgetLayer } from "./budget-layer.js";
import { cacheFillLayer, cacheLayer, type UpstreamRead } from "./cache-layer.js";
import { coalesceLayer } from "./coalesce-layer.js";
import type { BudgetPort, UpstreamPort } from "./ports.js";
import { composeLayers, type Handler, type Layer } from "./types.js";
import { type RateLimitProbe, upstreamHandler } from "./upstream-handler.js";

export interface GatewayPipelineDeps {
  readonly cache: ResponseCache;
  readonly budget: BudgetPort;
  readonly upstream: UpstreamPort;
  readonly logger: Logger;
  readonly probe?: RateLimitProbe | undefined;
  /** The batching layer (broker/batch); omitted → no cross-session batching. */
  readonly batch?: Layer | undefined;
  /** Cross-broker coalescing over Redis; omitted → in-process only. */
  readonly shared?:
    | { readonly redis: Redis; readonly pubsub: PubSubHub; readonly prefix: string }
    | undefined;
  readonly now?: () => number;
  /** The `coalesce` settings (docs/config.md); omitted → their defaults. */
  readonly coalesce?: {
    readonly lockTtlMs: number;
    readonly releaseRetryMs: number;
    readonly maxPublishBytes: number;
  };
  /** Agents' reads are registered here for refresh-once; omitted: no refresh, no stale serving. */
  readonly registry?: RefreshRegistry | undefined;
  /** cache.staleWhileRevalidateMs. @defaultValue 0 */
  readonly staleWhileRevalidateMs?: number | undefined;
  /** Every upstream read, with its reason (the ao_broker.upstream.reads metric). */
  readonly onUpstreamRead?: ((read: UpstreamRead) => void) | undefined;
  /** While webhooks arrive, how far a vouch reaches (cache-layer.ts `vouchStretch`). */
  readonly vouchStretch?: (() => number) | undefined;
}

export function createGatewayPipeline(deps: GatewayPipelineDeps): Handler {
  const layers: Layer[] = [
    cacheLayer({
      cache: deps.cache,
      logger: deps.logger,
      ...(deps.now ? { now: deps.now } : {}),
      registry: deps.registry,
      staleWhileRevalidateMs: deps.staleWhileRevalidateMs,
      onUpstreamRead: deps.onUpstreamRead,
      vouchStretch: deps.vouchStretch,
    }),
    coalesceLayer({
      logger: deps.logger,
      ...(deps.coalesce
        ? { lockTtlMs: deps.coalesce.lockTtlMs, releaseRetryMs: deps.coalesce.releaseRetryMs }
        : {}),
      ...(deps.shared
        ? {
            shared: {
              ...deps.shared,
              ...(deps.coalesce ? { maxPublishBytes: deps.coalesce.maxPublishBytes } : {}),
            },
          }
        : {}),
    }),
    cacheFillLayer({ cache: deps.cache, logger: deps.logger, ...(deps.now ? { now: deps.now } : {}) }),
  ];
  if (deps.batch) layers.push(deps.batch);
  layers.push(budgetLayer(deps.budget));
  return composeLayers(layers, upstreamHandler({ upstream: deps.upstream, probe: deps.probe }));
}
