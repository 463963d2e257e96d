/**
 * The session state machine: `(state, input, now) → { state, events }`, pure. Inputs are PR
 * observations (snapshots from polling, partial facts from webhooks), the outcome of a PR lookup
 * for the branch, reports from the orchestrator about the agent, and clock ticks (for `stuck`).
 * Out-of-order and repeated observations are settled by mergeObservation; this module decides the
 * status (derive-status.ts) and the events (session-events.ts). Terminal statuses absorb inputs.
 */
import { deriveStatus, type StatusOptions } from "./derive-status.js";
import type { EventSource, LifecycleEvent } from "./lifecycle-event.js";
import { type MergeOutcome, mergeObservation, type PrObservation } from "./merge-observation.js";
import { diffEvents, type EventDraft, materializeEvents } from "./session-events.js";
import type { SessionState } from "./session-state.js";
import { isTerminalStatus } from "./session-status.js";

export type AgentReport = "activity" | "needs-input" | "exited" | "killed" | "done";

export type SessionInput =
  | {
      readonly type: "observe";
      readonly observation: PrObservation;
      readonly source: EventSource;
    }
  /** A lookup found the branch's PR (or a newer PR than the closed one held): its facts follow. */
  | { readonly type: "found"; readonly number: number; readonly source: EventSource }
  /** A lookup found no PR for the branch. */
  | { readonly type: "not-found"; readonly source: EventSource }
  | { readonly type: "report"; readonly report: AgentReport }
  | { readonly type: "tick" };

export interface TransitionResult {
  readonly state: SessionState;
  readonly events: readonly LifecycleEvent[];
  /** The PR facts changed in a way a consumer can see (callers invalidate caches on this). */
  readonly factsChanged: boolean;
  /** For observations: what mergeObservation made of it; "ignored" when the input did not apply. */
  readonly outcome: MergeOutcome | "ignored" | "other-pr";
}

export type MachineOptions = StatusOptions;

function observedNumber(state: SessionState, observation: PrObservation): number | null {
  if (observation.kind === "snapshot") return observation.facts.number;
  if (observation.kind === "pr-event") return observation.number;
  return state.prNumber;
}

function settle(
  prev: SessionState,
  draft: SessionState,
  now: number,
  options: MachineOptions,
  extra: { source: EventSource; drafts?: readonly EventDraft[] },
): { state: SessionState; events: LifecycleEvent[] } {
  const status = deriveStatus(draft, now, options);
  const withStatus: SessionState = status === draft.status ? draft : { ...draft, status, statusSince: now };
  const drafts = [...(extra.drafts ?? []), ...diffEvents(prev, withStatus)];
  const { events, eventSeq } = materializeEvents(prev, withStatus, drafts, { source: extra.source, now });
  return { state: events.length === 0 ? withStatus : { ...withStatus, eventSeq }, events };
}

function observe(
  state: SessionState,
  input: Extract<SessionInput, { type: "observe" }>,
  now: number,
  options: MachineOptions,
): TransitionResult {
  const number = observedNumber(state, input.observation);
  if (state.prNumber === null ? input.observation.kind !== "snapshot" : number !== state.prNumber) {
    return { state, events: [], factsChanged: false, outcome: "other-pr" };
  }
  const merged = mergeObservation(state.pr ?? undefined, input.observation);
  if (
    merged.facts === undefined ||
    merged.outcome === "stale" ||
    merged.outcome === "no-base" ||
    merged.outcome === "other-head"
  ) {
    return { state, events: [], factsChanged: false, outcome: merged.outcome };
  }
  const facts = merged.facts;
  const moved =
    state.pr === null || facts.updatedAt > state.pr.updatedAt || facts.headSha !== state.pr.headSha;
  const draft: SessionState = {
    ...state,
    prNumber: facts.number,
    pr: facts,
    detectionDone: true,
    lastActivityAt: moved ? now : state.lastActivityAt,
  };
  const { state: next, events } = settle(state, draft, now, options, { source: input.source });
  return { state: next, events, factsChanged: merged.changed, outcome: merged.outcome };
}

function report(
  state: SessionState,
  kind: AgentReport,
  now: number,
  options: MachineOptions,
): { state: SessionState; events: LifecycleEvent[] } {
  switch (kind) {
    case "activity":
      return settle(state, { ...state, needsInput: false, lastActivityAt: now }, now, options, {
        source: "report",
      });
    case "needs-input":
      return settle(state, { ...state, needsInput: true }, now, options, { source: "report" });
    case "exited":
      return settle(state, { ...state, status: "killed", statusSince: now }, now, options, {
        source: "report",
        drafts: [{ type: "agent-exited" }],
      });
    case "killed":
      return settle(state, { ...state, status: "killed", statusSince: now }, now, options, {
        source: "report",
      });
    case "done":
      return settle(state, { ...state, status: "done", statusSince: now }, now, options, {
        source: "report",
      });
  }
}

export function transition(
  state: SessionState,
  input: SessionInput,
  now: number,
  options: MachineOptions,
): TransitionResult {
  if (isTerminalStatus(state.status)) return { state, events: [], factsChanged: false, outcome: "ignored" };
  switch (input.type) {
    case "observe":
      return observe(state, input, now, options);
    case "found": {
      if (state.prNumber === input.number) {
        return { state, events: [], factsChanged: false, outcome: "unchanged" };
      }
      // A different PR replaces a closed one; an open PR is never displaced by a lookup.
      if (state.pr !== null && state.pr.state === "OPEN") {
        return { state, events: [], factsChanged: false, outcome: "other-pr" };
      }
      const draft: SessionState = { ...state, prNumber: input.number, pr: null, detectionDone: true };
      return {
        ...settle(state, draft, now, options, { source: input.source }),
        factsChanged: false,
        outcome: "applied",
      };
    }
    case "not-found": {
      if (state.detectionDone && state.prNumber === null) {
        const ticked = settle(state, state, now, options, { source: input.source });
        return { ...ticked, factsChanged: false, outcome: "unchanged" };
      }
      const draft = { ...state, detectionDone: true };
      return {
        ...settle(state, draft, now, options, { source: input.source }),
        factsChanged: false,
        outcome: "applied",
      };
    }
    case "report":
      return { ...report(state, input.report, now, options), factsChanged: false, outcome: "applied" };
    case "tick":
      return {
        ...settle(state, state, now, options, { source: "tick" }),
        factsChanged: false,
        outcome: "unchanged",
      };
  }
}
