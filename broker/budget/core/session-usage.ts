/**
 * What admission knows of one session in the current window: declared apart so the grouping rule
 * (groups.ts) and admission (admission.ts), which uses the grouping, do not import each other.
 */
export interface SessionUsage {
  readonly id: string;
  /** > 0. */
  readonly weight: number;
  /** Settled spend in this window plus in-flight reservations. */
  readonly used: number;
  /** Epoch ms of its first request in this window. */
  readonly firstSeenAt: number;
  /** Epoch ms of its last refused request, if any. */
  readonly deniedAt?: number | undefined;
}
