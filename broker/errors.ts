/** Error codes of the broker daemon (gateway, sessions, cache, pipeline). */
export const BrokerErrors = {
  /** Neither GITHUB_TOKEN, GH_TOKEN nor upstream.tokenFile gave a PAT, and --simulate is off. */
  AO_ERR_NO_TOKEN: "AO_ERR_NO_TOKEN",
  /** A session id that does not exist (or was closed). */
  AO_ERR_UNKNOWN_SESSION: "AO_ERR_UNKNOWN_SESSION",
  /** A session or invocation token that is unknown, expired or revoked. */
  AO_ERR_BAD_TOKEN: "AO_ERR_BAD_TOKEN",
  /** A write attempted with a read-only token. */
  AO_ERR_READ_ONLY: "AO_ERR_READ_ONLY",
  /** Invalid session parameters (id, repo, weight). */
  AO_ERR_INVALID_SESSION: "AO_ERR_INVALID_SESSION",
  /** Another broker already listens on the gateway address or socket. */
  AO_ERR_ALREADY_RUNNING: "AO_ERR_ALREADY_RUNNING",
  /** A lifecycle method was called on a broker that runs no lifecycle service. */
  AO_ERR_LIFECYCLE_DISABLED: "AO_ERR_LIFECYCLE_DISABLED",
  /** Sessions cannot be verified because Redis is unreachable and the token was not seen recently. */
  AO_ERR_STATE_UNAVAILABLE: "AO_ERR_STATE_UNAVAILABLE",
  /** The broker is shutting down and accepts no new work. */
  AO_ERR_SHUTTING_DOWN: "AO_ERR_SHUTTING_DOWN",
  /** A re-open asked for what the open session cannot become (a read-only session made writable). */
  AO_ERR_SESSION_CONFLICT: "AO_ERR_SESSION_CONFLICT",
  /** An IPC write refused while Redis is unreachable: it was NOT sent to GitHub. */
  AO_ERR_WRITE_NOT_SENT: "AO_ERR_WRITE_NOT_SENT",
} as const;
export type BrokerErrorCode = keyof typeof BrokerErrors;
