/**
 * The IPC protocol between the broker and its clients (AO, the `ao-broker` CLI, the gh shim):
 * JSON-RPC 2.0, one JSON object per line on a Unix socket, `hello` first. docs/ipc-protocol.md is
 * the prose version of this file, with one example exchange per method.
 *
 * Params types are inferred from the zod schemas in protocol-schemas.ts (type-only import: zod is
 * not loaded by this module). `MethodParams` is what a caller may send (optional keys optional);
 * `MethodParsedParams` is what a handler receives after validation.
 *
 * PROTOCOL_VERSION changes only for changes that break an existing client; adding a method or an
 * optional param does not bump it (`hello` lists the methods a broker implements).
 */
import type { z } from "zod";
import type { MethodName } from "./method-names.js";
import type {
  BrokerShutdownResult,
  BrokerStatusResult,
  BudgetResult,
  EventsSubscribeResult,
  EventsUnsubscribeResult,
  GraphqlResult,
  HelloResult,
  InvocationFinishResult,
  LifecycleStatusResult,
  LifecycleUnwatchResult,
  LifecycleWatchResult,
  RestResult,
  SessionCloseResult,
  SessionListResult,
  SessionOpenResult,
  StatsResult,
  TokenIssueResult,
} from "./protocol-results.js";
import type { ParamsSchemas } from "./protocol-schemas.js";

export const PROTOCOL_VERSION = 1;

export { METHOD_NAMES, type MethodName } from "./method-names.js";

/** The method of the server-pushed notification that carries a published event. */
export const EVENT_NOTIFICATION = "event";

/** Method → result type. */
export interface MethodResults {
  hello: HelloResult;
  "session.open": SessionOpenResult;
  "session.close": SessionCloseResult;
  "session.list": SessionListResult;
  "token.issue": TokenIssueResult;
  "invocation.finish": InvocationFinishResult;
  "budget.get": BudgetResult;
  graphql: GraphqlResult;
  rest: RestResult;
  stats: StatsResult;
  "lifecycle.watch": LifecycleWatchResult;
  "lifecycle.unwatch": LifecycleUnwatchResult;
  "lifecycle.status": LifecycleStatusResult;
  "events.subscribe": EventsSubscribeResult;
  "events.unsubscribe": EventsUnsubscribeResult;
  "broker.status": BrokerStatusResult;
  "broker.shutdown": BrokerShutdownResult;
}

/** What a caller sends for method M. */
export type MethodParams<M extends MethodName> = z.input<ParamsSchemas[M]>;
/** What a handler of method M receives, after validation. */
export type MethodParsedParams<M extends MethodName> = z.output<ParamsSchemas[M]>;
export type MethodResult<M extends MethodName> = MethodResults[M];

/** Params of the `event` notification (server → client). */
export interface EventNotificationParams {
  readonly subscriptionId: string;
  readonly topic: string;
  /** The event itself; the publishing folder owns its shape. */
  readonly event: unknown;
  /**
   * Per subscription, +1 for every matching event, delivered or not: a gap means events were
   * dropped because this connection did not read fast enough.
   */
  readonly seq: number;
  /** Events dropped for this subscription since the previous delivered one (absent when none). */
  readonly dropped?: number;
}

/** JSON-RPC 2.0 ids the broker accepts. */
export type JsonRpcId = string | number | null;

export interface JsonRpcErrorObject {
  readonly code: number;
  readonly message: string;
  /** Always carries `aoCode` when the broker sent it. */
  readonly data?: { readonly aoCode?: string; readonly [key: string]: unknown };
}

export interface JsonRpcRequest {
  readonly jsonrpc: "2.0";
  readonly id?: JsonRpcId;
  readonly method: string;
  readonly params?: unknown;
}

export type JsonRpcResponse =
  | { readonly jsonrpc: "2.0"; readonly id: JsonRpcId; readonly result: unknown }
  | { readonly jsonrpc: "2.0"; readonly id: JsonRpcId; readonly error: JsonRpcErrorObject };
