/**
 * The persisted state of one watched session: plain JSON (it is stored in Redis as is), versioned
 * so that a later layout can migrate old records instead of misreading them.
 */
import type { PrFacts } from "./pr-facts.js";
import type { SessionStatus } from "./session-status.js";

export const SESSION_STATE_VERSION = 1;

export interface SessionState {
  readonly v: typeof SESSION_STATE_VERSION;
  readonly id: string;
  readonly repo: string;
  readonly branch: string;
  /** The PR the session is tied to (given on watch, or detected), or null while none is known. */
  readonly prNumber: number | null;
  /** The last facts applied for that PR; null until it has been read once. */
  readonly pr: PrFacts | null;
  readonly status: SessionStatus;
  /** Local epoch ms of the last status change. */
  readonly statusSince: number;
  /** The branch has been looked up for a PR at least once. */
  readonly detectionDone: boolean;
  /** The agent reported that it waits for a human; cleared by its next activity. */
  readonly needsInput: boolean;
  /** Local epoch ms of the last agent activity or PR change; null when none was ever seen. */
  readonly lastActivityAt: number | null;
  /** Number of events raised so far (the last event id is `${id}:${eventSeq}`). */
  readonly eventSeq: number;
}

export interface NewSessionInput {
  readonly id: string;
  readonly repo: string;
  readonly branch: string;
  readonly prNumber?: number | undefined;
}

export function initialSessionState(input: NewSessionInput, now: number): SessionState {
  return {
    v: SESSION_STATE_VERSION,
    id: input.id,
    repo: input.repo,
    branch: input.branch,
    prNumber: input.prNumber ?? null,
    pr: null,
    status: "detecting",
    statusSince: now,
    detectionDone: input.prNumber !== undefined,
    needsInput: false,
    lastActivityAt: null,
    eventSeq: 0,
  };
}
