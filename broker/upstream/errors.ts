/** Error codes of the upstream client and queue (broker/upstream/). Listed in docs/errors.md. */
export const UpstreamErrors = {
  /** GitHub (or the configured upstream) could not be reached; the request was never sent. */
  AO_ERR_UPSTREAM_UNREACHABLE: "AO_ERR_UPSTREAM_UNREACHABLE",
  /** No complete answer within the per-request timeout; the request may have been processed. */
  AO_ERR_UPSTREAM_TIMEOUT: "AO_ERR_UPSTREAM_TIMEOUT",
  /** The connection failed after the request was sent (reset, closed); it may have been processed. */
  AO_ERR_UPSTREAM_CONNECTION: "AO_ERR_UPSTREAM_CONNECTION",
  /**
   * A write may or may not have happened (timeout or connection loss after sending, or the broker
   * running it crashed). It is never retried: check GitHub before repeating it.
   */
  AO_ERR_WRITE_OUTCOME_UNKNOWN: "AO_ERR_WRITE_OUTCOME_UNKNOWN",
  /** The caller's deadline passed before the request could be sent (queue, pacing or a pause). */
  AO_ERR_UPSTREAM_DEADLINE: "AO_ERR_UPSTREAM_DEADLINE",
  /** GitHub's budget for the resource is spent until after the caller's deadline; nothing was sent. */
  AO_ERR_UPSTREAM_RATE_LIMITED: "AO_ERR_UPSTREAM_RATE_LIMITED",
  /**
   * GitHub's secondary limits (content creation per minute or hour, an endpoint's points per
   * minute) let the request go only after the caller's deadline; nothing was sent. `data`:
   * `limit`, `endpoint`, `retryAfterSeconds`, `retryAt`, `allowed`. HTTP 429 with retry-after.
   */
  AO_ERR_UPSTREAM_PACED: "AO_ERR_UPSTREAM_PACED",
  /** The job's result never arrived (the broker running it vanished); reads only. */
  AO_ERR_UPSTREAM_LOST: "AO_ERR_UPSTREAM_LOST",
  /** An upstream job was malformed (method, path, headers, deadline). */
  AO_ERR_UPSTREAM_BAD_REQUEST: "AO_ERR_UPSTREAM_BAD_REQUEST",
  /** An upstream Lua script (pacing, pauses, spacing) reported a failure; `data.script` names it. */
  AO_ERR_UPSTREAM_SCRIPT_FAILED: "AO_ERR_UPSTREAM_SCRIPT_FAILED",
  /** The upstream queue is closed (broker shutting down) or was not started. */
  AO_ERR_UPSTREAM_CLOSED: "AO_ERR_UPSTREAM_CLOSED",
} as const;
export type UpstreamErrorCode = keyof typeof UpstreamErrors;
