/**
 * The method names of the IPC protocol, on their own so that protocol.ts (which takes its params
 * types from the schemas) and protocol-schemas.ts (whose table must cover every method) both
 * import them without importing each other.
 */
/** Every method of protocol version 1, in documentation order. */
export const METHOD_NAMES = [
  "hello",
  "session.open",
  "session.close",
  "session.list",
  "token.issue",
  "invocation.finish",
  "budget.get",
  "graphql",
  "rest",
  "stats",
  "lifecycle.watch",
  "lifecycle.unwatch",
  "lifecycle.status",
  "events.subscribe",
  "events.unsubscribe",
  "broker.status",
  "broker.shutdown",
] as const;
export type MethodName = (typeof METHOD_NAMES)[number];
