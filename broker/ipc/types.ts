/**
 * The types a broker module sees when it plugs methods into the IPC server: the per-connection
 * context and the typed handler table. Handlers receive params already validated against the
 * protocol's zod schema, so they never re-check shapes; they throw AoError for anything the caller
 * should see (error-reply.ts maps it) and may throw anything else for bugs (the caller gets -32603).
 */
import type { z } from "zod";
import type { MethodName, MethodParsedParams, MethodResult } from "../../client/index.js";

/** What `hello` told us about the client. Self-declared: for logs and stats, not for trust. */
export interface HelloClientInfo {
  readonly name: string;
  readonly version: string;
  readonly pid?: number | undefined;
}

export interface IpcContext {
  /** Unique within this server's lifetime, e.g. `c17`. */
  readonly connectionId: string;
  /** Set once `hello` succeeded (always, for every method but `hello`). */
  readonly client: HelloClientInfo | undefined;
  /** Aborted when the connection closes: long waits (budget, queue) should stop then. */
  readonly signal: AbortSignal;
  /**
   * Runs `cleanup` once when the connection closes (or at once if it already has). Peer
   * credentials are not offered: Node exposes no SO_PEERCRED, so the socket's mode and group are
   * the access control.
   */
  onClose(cleanup: () => void): void;
  /**
   * Pushes a JSON-RPC notification to this connection. Returns false when it was dropped because
   * the connection is closed or reading too slowly (over `notifyHighWaterBytes`).
   */
  notify(method: string, params: unknown): boolean;
}

/** Methods the server answers itself: `hello` and the event subscription pair. */
export type BuiltinMethod = "hello" | "events.subscribe" | "events.unsubscribe";
/** Methods a broker module implements. */
export type HandledMethod = Exclude<MethodName, BuiltinMethod>;

export type IpcHandler<M extends HandledMethod> = (
  params: MethodParsedParams<M>,
  context: IpcContext,
) => Promise<MethodResult<M>> | MethodResult<M>;

/** The broker's method table. Missing entries answer -32601 ("not implemented by this broker"). */
export type IpcHandlers = { readonly [M in HandledMethod]?: IpcHandler<M> };

/**
 * A method outside the protocol (test harnesses, experiments). Its name must not be a protocol
 * method. Without `params`, any object is accepted as is.
 */
export interface IpcExtraMethod {
  readonly params?: z.ZodType;
  readonly handler: (params: unknown, context: IpcContext) => unknown;
}
