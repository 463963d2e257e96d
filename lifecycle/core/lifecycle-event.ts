/**
 * The events the lifecycle publishes, named after the reactions AO maps them to. Every event
 * carries the session, the PR it concerns and AO's PREnrichmentData as it stood when the event was
 * raised, so a consumer never has to ask GitHub again to act on it. Ids are `${sessionId}:${seq}`
 * with a per-session sequence that survives restarts (it lives in the persisted session state), so
 * consumers can drop repeats.
 */
import type { PREnrichmentData } from "./pr-enrichment.js";
import type { SessionStatus } from "./session-status.js";

export const LIFECYCLE_EVENT_TYPES = [
  /** The session's branch got a PR (detected by the lifecycle, or given on watch and first read). */
  "pr-detected",
  "ci-failed",
  "ci-passed",
  "changes-requested",
  /** The session entered `mergeable`: CI green (or none), approved (or no review needed), no blockers. */
  "approved-and-green",
  "merge-conflicts",
  "pr-merged",
  "pr-closed",
  /** New unresolved review threads appeared (their ids are in `threads`). */
  "review-comments",
  "agent-stuck",
  "agent-needs-input",
  "agent-exited",
  /** Every status change, after the specific events of the same transition. */
  "status-changed",
] as const;
export type LifecycleEventType = (typeof LIFECYCLE_EVENT_TYPES)[number];

/** What caused the input that raised the event. */
export type EventSource = "poll" | "webhook" | "detection" | "report" | "tick" | "watch";

export interface LifecycleEvent {
  readonly id: string;
  readonly type: LifecycleEventType;
  readonly sessionId: string;
  readonly repo: string;
  readonly branch: string;
  readonly prNumber: number | null;
  /** AO's key, "owner/repo#number" (lower case). */
  readonly prKey: string | null;
  readonly prUrl: string | null;
  readonly headSha: string | null;
  /** The session's status after the transition that raised this event. */
  readonly status: SessionStatus;
  readonly previousStatus: SessionStatus;
  readonly pr: PREnrichmentData | null;
  /** review-comments: ids of the new unresolved threads. */
  readonly threads?: readonly string[];
  readonly source: EventSource;
  /** Local epoch ms. */
  readonly at: number;
}
