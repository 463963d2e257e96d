/**
 * What one poll cycle did. On its own so that the instrumentation seam (which receives it) and the
 * poll cycle (which builds it, through the lifecycle context that holds the instrumentation) do not
 * import each other.
 */
export interface CycleReport {
  readonly startedAt: number;
  readonly durationMs: number;
  readonly sessions: number;
  readonly prs: number;
  readonly guards: {
    readonly requests: number;
    readonly notModified: number;
    readonly errors: number;
    /** PRs sent to a GraphQL re-read by a guard. */
    readonly moved: number;
    /** Checks applied straight from guard answers (no GraphQL). */
    readonly checksApplied: number;
  };
  readonly detection: { readonly queries: number; readonly points: number; readonly found: number };
  readonly enrichment: {
    readonly queries: number;
    readonly points: number;
    readonly prs: number;
    readonly filled: number;
    readonly deferred: number;
  };
  readonly events: number;
  /** Factor the budget stretched poll intervals by (1 = none). */
  readonly stretch: number;
}
