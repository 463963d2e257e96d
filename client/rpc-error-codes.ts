/**
 * The numeric JSON-RPC error codes of the broker's IPC protocol. -32700..-32600 are JSON-RPC 2.0's
 * own (https://www.jsonrpc.org/specification#error_object); -32000..-32099 is the range the spec
 * leaves to servers, used here for the protocol's own conditions. Every error the broker sends also
 * carries `data.aoCode` (an AO_ERR_* string): that, not the number, is what code should branch on.
 * Numbers are never reused for a different meaning (docs/ipc-protocol.md lists them).
 */
export const RpcErrorCodes = {
  /** The line was not valid JSON (or not valid UTF-8). `id` is null. */
  PARSE_ERROR: -32700,
  /** Not a JSON-RPC 2.0 request object, a batch, or a line over the size limit. */
  INVALID_REQUEST: -32600,
  /** No such method, or this broker does not implement it. */
  METHOD_NOT_FOUND: -32601,
  /** Params failed validation; the message names each offending path. */
  INVALID_PARAMS: -32602,
  /** An unexpected failure inside the broker; details are only in the broker's log. */
  INTERNAL_ERROR: -32603,
  /** A broker error with a code of its own (see `data.aoCode`). */
  APPLICATION_ERROR: -32000,
  /** A call other than `hello` came first on the connection. */
  HELLO_REQUIRED: -32001,
  /** `hello` asked for a protocol version this broker does not speak (`data.supported`). */
  PROTOCOL_UNSUPPORTED: -32002,
  /** The broker already serves its maximum number of connections. */
  TOO_MANY_CONNECTIONS: -32003,
  /** The broker is shutting down and accepts no new calls. */
  SHUTTING_DOWN: -32004,
} as const;
export type RpcErrorCode = (typeof RpcErrorCodes)[keyof typeof RpcErrorCodes];
