/**
 * broker/: the daemon. Other folders start it with `startBroker()` (or the CLI's `ao-broker start`);
 * everything else here is internal to the composition root.
 */

export { type Config, type ConfigInput, configSchema } from "./config/config-schema.js";
export { BROKER_VERSION, type RunningBroker, type StartBrokerOptions, startBroker } from "./create-broker.js";
export {
  createRedisClient,
  describeRedisUrl,
  type EmbeddedRedis,
  type EmbeddedRedisOptions,
  findRedisServer,
  pingRedis,
  type RedisClientOptions,
  type RedisConnectionOptions,
  type ResolvedRedis,
  type ResolveRedisOptions,
  redisOptionsFromUrl,
  redisServerVersion,
  resolveRedis,
  startEmbeddedRedis,
} from "./redis/index.js";
export { invocationSuffix, parseInvocationSuffix } from "./sessions/caller-resolver.js";
export { sessionEnv } from "./sessions/session-env.js";
