/**
 * What callers send to watch a session (validated here, once, with messages that name the field)
 * and what they get back about one: AO's PREnrichmentData plus the session's status and times.
 */
import { AoError } from "../common/index.js";
import { type PREnrichmentData, toEnrichment } from "./core/pr-enrichment.js";
import { isValidBranch, isValidPrNumber, parseRepo, prKey } from "./core/repo-ref.js";
import type { SessionState } from "./core/session-state.js";
import type { SessionStatus } from "./core/session-status.js";
import { LifecycleErrors } from "./errors.js";
import type { WatchRecord } from "./watch-store.js";

export interface WatchRequest {
  readonly id: string;
  /** owner/name */
  readonly repo: string;
  readonly branch: string;
  readonly pr?: number;
  readonly projectId?: string;
}

export interface SessionSummary {
  readonly id: string;
  readonly repo: string;
  readonly branch: string;
  readonly projectId?: string;
  readonly prNumber: number | null;
  readonly prKey: string | null;
  readonly status: SessionStatus;
  readonly statusSince: number;
  readonly pr: PREnrichmentData | null;
  readonly headSha: string | null;
  /** Local ms of the last snapshot applied; null before the first. */
  readonly lastObservedAt: number | null;
  readonly watchedAt: number;
}

export function summarize(watch: WatchRecord, state: SessionState): SessionSummary {
  return {
    id: state.id,
    repo: state.repo,
    branch: state.branch,
    ...(watch.projectId === undefined ? {} : { projectId: watch.projectId }),
    prNumber: state.prNumber,
    prKey: state.prNumber === null ? null : prKey(state.repo, state.prNumber),
    status: state.status,
    statusSince: state.statusSince,
    pr: state.pr ? toEnrichment(state.pr) : null,
    headSha: state.pr?.headSha ?? null,
    lastObservedAt: state.pr?.observedAt ?? null,
    watchedAt: watch.watchedAt,
  };
}

function invalidWatch(message: string): AoError {
  return new AoError(LifecycleErrors.AO_ERR_LIFECYCLE_INVALID_WATCH, message, {
    httpStatus: 400,
    rpcCode: -32602,
  });
}

export function validateWatch(session: WatchRequest): void {
  if (typeof session?.id !== "string" || session.id.length === 0 || session.id.length > 200) {
    throw invalidWatch("watch: `id` must be a non-empty string of at most 200 characters");
  }
  if (typeof session.repo !== "string" || !parseRepo(session.repo)) {
    throw invalidWatch(
      `watch ${session.id}: \`repo\` must be "owner/name", got ${JSON.stringify(session.repo)}`,
    );
  }
  if (typeof session.branch !== "string" || !isValidBranch(session.branch)) {
    throw invalidWatch(
      `watch ${session.id}: \`branch\` is not a valid branch name: ${JSON.stringify(session.branch)}`,
    );
  }
  if (session.pr !== undefined && !isValidPrNumber(session.pr)) {
    throw invalidWatch(
      `watch ${session.id}: \`pr\` must be a positive integer, got ${JSON.stringify(session.pr)}`,
    );
  }
  if (
    session.projectId !== undefined &&
    (typeof session.projectId !== "string" || session.projectId.length > 200)
  ) {
    throw invalidWatch(`watch ${session.id}: \`projectId\` must be a string of at most 200 characters`);
  }
}
