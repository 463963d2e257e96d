/**
 * Builds the broker's lifecycle poller: a LifecycleLeader (one poller per Redis) whose service
 * reads through this broker's pipeline, keeps its watches in the shared Redis store, and is traced
 * and accounted like any session's requests.
 */
import type { Redis } from "ioredis";
import type { Logger } from "../../common/index.js";
import {
  createLifecycleService,
  createRedisWatchStore,
  type LifecycleConfig,
  type RefreshHoldPort,
} from "../../lifecycle/index.js";
import type { BudgetGate } from "../budget/index.js";
import type { ResponseCache } from "../cache/response-cache.js";
import type { BrokerObservability } from "../observability/observability.js";
import type { ClassifyInput, RequestClass } from "../pipeline/classify.js";
import type { Handler } from "../pipeline/types.js";
import type { PubSubHub } from "../redis/pubsub-hub.js";
import { LifecycleLeader } from "./lifecycle-leader.js";
import { createLifecyclePorts } from "./lifecycle-ports.js";

export interface LifecycleWiring {
  readonly redis: Redis;
  readonly pubsub: PubSubHub;
  readonly prefix: string;
  readonly pipeline: Handler;
  readonly classify: (input: ClassifyInput) => RequestClass;
  readonly cache: ResponseCache;
  readonly gate: BudgetGate;
  readonly observability: BrokerObservability;
  readonly settings: Partial<LifecycleConfig>;
  /** The broker-side `lifecycle` settings (docs/config.md). */
  readonly timing: {
    readonly leaseMs: number;
    readonly forwardTimeoutMs: number;
    readonly requestDeadlineMs: number;
  };
  readonly logger: Logger;
  /** The refresh runner, held by each poll cycle (decision 0025); undefined when refresh is off. */
  readonly refresh?: { hold(): RefreshHoldPort } | undefined;
}

export function createLifecycleLeader(w: LifecycleWiring): LifecycleLeader {
  const logger = w.logger.child({ component: "lifecycle" });
  return new LifecycleLeader({
    redis: w.redis,
    pubsub: w.pubsub,
    prefix: w.prefix,
    logger,
    leaseMs: w.timing.leaseMs,
    forwardTimeoutMs: w.timing.forwardTimeoutMs,
    createService: () => {
      const watchStore = createRedisWatchStore({ client: w.redis, keyPrefix: w.prefix, logger });
      const service = createLifecycleService({
        ports: createLifecyclePorts({
          pipeline: w.pipeline,
          classify: w.classify,
          cache: w.cache,
          gate: w.gate,
          redis: w.redis,
          prefix: w.prefix,
          deadlineMs: w.timing.requestDeadlineMs,
          refresh: w.refresh,
          run: async (request, send) => {
            const response = await w.observability.traceLifecycleRequest(request, send);
            w.observability.recordAnswer(request.caller, request, response, response.status);
            return response;
          },
        }),
        store: watchStore,
        config: w.settings,
        instrument: w.observability.lifecycleInstrumentation(),
        logger,
      });
      return {
        ...service,
        close: async () => {
          await service.close();
          await watchStore.close();
        },
      };
    },
  });
}
