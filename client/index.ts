/**
 * client/: the TypeScript client of the broker's IPC protocol and the protocol's definition
 * (shared with the broker's server, which imports it from here). README.md has the options table;
 * docs/ipc-protocol.md the wire format.
 */
export {
  BrokerClient,
  type BrokerClientOptions,
  type CallArgs,
  type CallOptions,
  connectBroker,
  type EventHandler,
  type Unsubscribe,
} from "./broker-client.js";
export { classifyServerMessage, type ServerMessage } from "./core/classify-message.js";
export { LineSplitter, type LineSplitterOptions, type SplitResult } from "./core/line-splitter.js";
export { type DefaultSocketPathOptions, defaultSocketPath } from "./default-socket-path.js";
export { type ClientErrorCode, ClientErrors } from "./errors.js";
export { loadProtocolSchemas, type ProtocolSchemas } from "./load-protocol-schemas.js";
export {
  EVENT_NOTIFICATION,
  type EventNotificationParams,
  type JsonRpcErrorObject,
  type JsonRpcId,
  type JsonRpcRequest,
  type JsonRpcResponse,
  METHOD_NAMES,
  type MethodName,
  type MethodParams,
  type MethodParsedParams,
  type MethodResult,
  type MethodResults,
  PROTOCOL_VERSION,
} from "./protocol.js";
export type {
  BrokerInfo,
  BrokerShutdownResult,
  BrokerStatusResult,
  BudgetResource,
  BudgetResult,
  BudgetSecondary,
  BudgetSession,
  BudgetWaitInfo,
  CacheResult,
  EventsSubscribeResult,
  EventsUnsubscribeResult,
  GraphqlResult,
  HelloResult,
  InvocationFinishResult,
  LifecycleStatusResult,
  LifecycleUnwatchResult,
  LifecycleWatchResult,
  Priority,
  RecentCommand,
  RestResult,
  SecondaryCount,
  SessionCloseResult,
  SessionInfo,
  SessionListResult,
  SessionOpenResult,
  SessionStats,
  StatsResult,
  TokenIssueResult,
} from "./protocol-results.js";
export type { ParamsSchemas } from "./protocol-schemas.js";
export { rebuildError } from "./rebuild-error.js";
export { type RpcErrorCode, RpcErrorCodes } from "./rpc-error-codes.js";
export { VERSION } from "./version.js";
