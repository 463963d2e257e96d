/**
 * broker/ipc: the JSON-RPC 2.0 server on the broker's Unix socket. The lead's composition root
 * builds one IpcServer with the broker's handler table and calls start()/close(); other modules
 * publish events through `publish(topic, event)`. README.md has the options table.
 */
export { type ErrorReplyOptions, toErrorObject } from "./error-reply.js";
export { type IpcErrorCode, IpcErrors } from "./errors.js";
export { IpcServer, type IpcServerOptions } from "./ipc-server.js";
export { probeSocket } from "./socket-file.js";
export type {
  BuiltinMethod,
  HandledMethod,
  HelloClientInfo,
  IpcContext,
  IpcExtraMethod,
  IpcHandler,
  IpcHandlers,
} from "./types.js";
