/** Error codes shared by every folder: configuration and environment problems found at start-up. */
export const CommonErrors = {
  /** A configuration file, flag or environment variable failed validation. */
  AO_ERR_CONFIG_INVALID: "AO_ERR_CONFIG_INVALID",
  /** No Redis URL was given, none answers on 127.0.0.1:6379 and no redis-server binary exists. */
  AO_ERR_REDIS_UNAVAILABLE: "AO_ERR_REDIS_UNAVAILABLE",
  /** The private redis-server did not answer PING in time. */
  AO_ERR_REDIS_START_FAILED: "AO_ERR_REDIS_START_FAILED",
} as const;
export type CommonErrorCode = keyof typeof CommonErrors;
