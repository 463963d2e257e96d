/**
 * Which events a transition raises, from the state before and after it. Events describe changes,
 * so comparing like with like is the whole trick: the same facts applied twice compare equal and
 * raise nothing. A failure on a new head SHA is a new failure even when the old head failed too.
 * On the first read of a PR, conditions that need a reaction (failing CI, requested changes,
 * conflicts, unresolved threads) are raised; `ci-passed` is not, since nothing changed.
 */
import type { EventSource, LifecycleEvent, LifecycleEventType } from "./lifecycle-event.js";
import { toEnrichment } from "./pr-enrichment.js";
import { prKey } from "./repo-ref.js";
import type { SessionState } from "./session-state.js";

export interface EventDraft {
  readonly type: LifecycleEventType;
  readonly threads?: readonly string[];
}

export function diffEvents(prev: SessionState, next: SessionState): EventDraft[] {
  const drafts: EventDraft[] = [];
  const before = prev.pr && next.pr && prev.pr.number === next.pr.number ? prev.pr : null;
  const a = before ? toEnrichment(before) : null;
  const b = next.pr ? toEnrichment(next.pr) : null;
  if (next.pr && (!prev.pr || prev.pr.number !== next.pr.number)) drafts.push({ type: "pr-detected" });
  if (b && next.pr) {
    const headMoved = before !== null && before.headSha !== next.pr.headSha;
    if (b.ciStatus === "failing" && (a?.ciStatus !== "failing" || headMoved))
      drafts.push({ type: "ci-failed" });
    if (b.ciStatus === "passing" && a !== null && (a.ciStatus !== "passing" || headMoved)) {
      drafts.push({ type: "ci-passed" });
    }
    if (b.reviewDecision === "changes_requested" && a?.reviewDecision !== "changes_requested") {
      drafts.push({ type: "changes-requested" });
    }
    if (b.hasConflicts && !a?.hasConflicts) drafts.push({ type: "merge-conflicts" });
    if (b.state === "merged" && a?.state !== "merged") drafts.push({ type: "pr-merged" });
    if (b.state === "closed" && a?.state !== "closed") drafts.push({ type: "pr-closed" });
    const known = new Set(before?.unresolvedThreadIds ?? []);
    const fresh = next.pr.unresolvedThreadIds.filter((id) => !known.has(id));
    if (fresh.length > 0) drafts.push({ type: "review-comments", threads: fresh });
  }
  if (next.status === "mergeable" && prev.status !== "mergeable") drafts.push({ type: "approved-and-green" });
  if (next.status === "stuck" && prev.status !== "stuck") drafts.push({ type: "agent-stuck" });
  if (next.needsInput && !prev.needsInput) drafts.push({ type: "agent-needs-input" });
  return drafts;
}

export interface MaterializeOptions {
  readonly source: EventSource;
  readonly now: number;
}

/** Turns drafts into events, numbering them from the session's sequence; returns the new sequence. */
export function materializeEvents(
  prev: SessionState,
  next: SessionState,
  drafts: readonly EventDraft[],
  options: MaterializeOptions,
): { events: LifecycleEvent[]; eventSeq: number } {
  const all = [...drafts];
  if (prev.status !== next.status) all.push({ type: "status-changed" });
  let seq = next.eventSeq;
  const enrichment = next.pr ? toEnrichment(next.pr) : null;
  const events = all.map((draft): LifecycleEvent => {
    seq += 1;
    return {
      id: `${next.id}:${seq}`,
      type: draft.type,
      sessionId: next.id,
      repo: next.repo,
      branch: next.branch,
      prNumber: next.prNumber,
      prKey: next.prNumber === null ? null : prKey(next.repo, next.prNumber),
      prUrl: next.pr?.url ?? null,
      headSha: next.pr?.headSha ?? null,
      status: next.status,
      previousStatus: prev.status,
      pr: enrichment,
      ...(draft.threads ? { threads: draft.threads } : {}),
      source: options.source,
      at: options.now,
    };
  });
  return { events, eventSeq: seq };
}
