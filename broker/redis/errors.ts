/** Error codes of the broker's Redis wiring (broker/redis/). Listed in docs/errors.md. */
export const RedisErrors = {
  /** The named Redis did not answer at start; the message names its URL (password masked). */
  AO_ERR_REDIS_UNREACHABLE: "AO_ERR_REDIS_UNREACHABLE",
  /** GitHub answered 401 to GET /user at start: the token is invalid, expired or revoked. */
  AO_ERR_IDENTITY_REJECTED: "AO_ERR_IDENTITY_REJECTED",
  /** GET /user could not be answered at start, so the broker cannot tell whose namespace to use. */
  AO_ERR_IDENTITY_UNVERIFIED: "AO_ERR_IDENTITY_UNVERIFIED",
  /** The Redis namespace this broker computed is recorded for another identity; it does not join. */
  AO_ERR_NAMESPACE_OTHER_IDENTITY: "AO_ERR_NAMESPACE_OTHER_IDENTITY",
} as const;
export type RedisErrorCode = keyof typeof RedisErrors;
