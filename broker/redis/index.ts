export {
  type EmbeddedRedis,
  type EmbeddedRedisOptions,
  findRedisServer,
  pingRedis,
  redisServerVersion,
  startEmbeddedRedis,
} from "./embedded-redis.js";
export {
  createRedisClient,
  describeRedisUrl,
  type RedisClientOptions,
  type RedisConnectionOptions,
  redisOptionsFromUrl,
} from "./redis-url.js";
export { type ResolvedRedis, type ResolveRedisOptions, resolveRedis } from "./resolve-redis.js";
