/** Error codes of lifecycle/ (listed in docs/errors.md under "## lifecycle/"). */
export const LifecycleErrors = {
  /** watch() got a session without a usable id, owner/name repository, branch or PR number. */
  AO_ERR_LIFECYCLE_INVALID_WATCH: "AO_ERR_LIFECYCLE_INVALID_WATCH",
  /** report() named a session that is not watched. */
  AO_ERR_LIFECYCLE_UNKNOWN_SESSION: "AO_ERR_LIFECYCLE_UNKNOWN_SESSION",
  /** The lifecycle service was used after close(). */
  AO_ERR_LIFECYCLE_CLOSED: "AO_ERR_LIFECYCLE_CLOSED",
} as const;
export type LifecycleErrorCode = keyof typeof LifecycleErrors;
