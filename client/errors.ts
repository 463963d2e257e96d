/**
 * Error codes raised by the client itself (the broker's own codes arrive as `data.aoCode` and are
 * rebuilt as they are). Messages say what to do: "start one with `ao-broker start`".
 */
export const ClientErrors = {
  /** Nothing listens on the socket path (missing file or connection refused). */
  AO_ERR_BROKER_NOT_RUNNING: "AO_ERR_BROKER_NOT_RUNNING",
  /** The socket exists but this user may not connect to it (mode 0600 / group). */
  AO_ERR_BROKER_SOCKET_FORBIDDEN: "AO_ERR_BROKER_SOCKET_FORBIDDEN",
  /** Connecting, or `hello`, took longer than the connect timeout. */
  AO_ERR_BROKER_CONNECT_TIMEOUT: "AO_ERR_BROKER_CONNECT_TIMEOUT",
  /** A call got no answer within its timeout; the broker may still complete it. */
  AO_ERR_IPC_TIMEOUT: "AO_ERR_IPC_TIMEOUT",
  /** The connection closed while the call was in flight; whether it ran is unknown. */
  AO_ERR_IPC_DISCONNECTED: "AO_ERR_IPC_DISCONNECTED",
  /**
   * A write (a non-GET `rest` call, a GraphQL mutation) was in flight when the connection dropped:
   * the broker may have sent it, or may still send it from its queue. Check GitHub before repeating
   * it. (The same code as the broker's own, so callers branch on one code.)
   */
  AO_ERR_WRITE_OUTCOME_UNKNOWN: "AO_ERR_WRITE_OUTCOME_UNKNOWN",
  /** The call was made after `close()`. */
  AO_ERR_IPC_CLIENT_CLOSED: "AO_ERR_IPC_CLIENT_CLOSED",
  /** The broker sent something that is not a JSON-RPC 2.0 response (or an oversize line). */
  AO_ERR_IPC_BAD_RESPONSE: "AO_ERR_IPC_BAD_RESPONSE",
  /** The broker answered with a JSON-RPC error that carried no `aoCode` (e.g. a foreign server). */
  AO_ERR_IPC_REMOTE: "AO_ERR_IPC_REMOTE",
} as const;
export type ClientErrorCode = keyof typeof ClientErrors;
