/**
 * Error codes of the IPC server. Those sent on the wire travel as `data.aoCode` next to a
 * JSON-RPC code (client/rpc-error-codes.ts); the socket-file ones are raised by `start()`.
 */
export const IpcErrors = {
  /** A line was not valid JSON or not valid UTF-8 (-32700). */
  AO_ERR_IPC_PARSE_ERROR: "AO_ERR_IPC_PARSE_ERROR",
  /** A line was JSON but not a JSON-RPC 2.0 request (-32600). */
  AO_ERR_IPC_INVALID_REQUEST: "AO_ERR_IPC_INVALID_REQUEST",
  /** A batch (JSON array) was sent; the broker takes one request per line (-32600). */
  AO_ERR_IPC_BATCH_UNSUPPORTED: "AO_ERR_IPC_BATCH_UNSUPPORTED",
  /** A line exceeded maxLineBytes; the connection is closed after this error (-32600). */
  AO_ERR_IPC_LINE_TOO_LONG: "AO_ERR_IPC_LINE_TOO_LONG",
  /** Unknown method, or one this broker does not implement (-32601). */
  AO_ERR_IPC_METHOD_NOT_FOUND: "AO_ERR_IPC_METHOD_NOT_FOUND",
  /** Params failed validation; the message names each path (-32602). */
  AO_ERR_IPC_INVALID_PARAMS: "AO_ERR_IPC_INVALID_PARAMS",
  /** A handler failed unexpectedly; details only in the broker's log under `data.ref` (-32603). */
  AO_ERR_IPC_INTERNAL: "AO_ERR_IPC_INTERNAL",
  /** A call other than `hello` came first on a connection (-32001). */
  AO_ERR_IPC_HELLO_REQUIRED: "AO_ERR_IPC_HELLO_REQUIRED",
  /** `hello` asked for a protocol version the broker does not speak (-32002). */
  AO_ERR_IPC_PROTOCOL_UNSUPPORTED: "AO_ERR_IPC_PROTOCOL_UNSUPPORTED",
  /** At maxConnections with none evictable (the new connection closes), or sent to an evicted one (-32003). */
  AO_ERR_IPC_TOO_MANY_CONNECTIONS: "AO_ERR_IPC_TOO_MANY_CONNECTIONS",
  /** The server is closing and takes no new calls (-32004). */
  AO_ERR_IPC_SHUTTING_DOWN: "AO_ERR_IPC_SHUTTING_DOWN",
  /** start(): another broker answers on the socket path. */
  AO_ERR_IPC_SOCKET_IN_USE: "AO_ERR_IPC_SOCKET_IN_USE",
  /** start(): the socket path is unusable (not a socket, too long, no permission, bad group). */
  AO_ERR_IPC_SOCKET_UNUSABLE: "AO_ERR_IPC_SOCKET_UNUSABLE",
} as const;
export type IpcErrorCode = keyof typeof IpcErrors;
