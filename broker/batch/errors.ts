/** Error codes of the GraphQL batcher (broker/batch). */
export const BatchErrors = {
  /** submit() after close(), or a member still waiting when close({ flush: false }) ran. */
  AO_ERR_BATCH_CLOSED: "AO_ERR_BATCH_CLOSED",
  /** A submitted member is not a GraphQL request (query not a string, empty id). */
  AO_ERR_BATCH_INVALID_MEMBER: "AO_ERR_BATCH_INVALID_MEMBER",
  /** Scheduler options out of range (budgets, caps); the message names the option. */
  AO_ERR_BATCH_INVALID_OPTIONS: "AO_ERR_BATCH_INVALID_OPTIONS",
} as const;
export type BatchErrorCode = keyof typeof BatchErrors;
