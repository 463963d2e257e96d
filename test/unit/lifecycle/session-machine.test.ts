import { describe, expect, it } from "vitest";
import type { PrObservation } from "../../../lifecycle/core/merge-observation.js";
import type { PrFacts } from "../../../lifecycle/core/pr-facts.js";
import { type SessionInput, transition } from "../../../lifecycle/core/session-machine.js";
import { initialSessionState, type SessionState } from "../../../lifecycle/core/session-state.js";
import { check, facts, T0 } from "./support/facts.js";

const OPTIONS = { stuckThresholdMs: 600_000 };
const NEW_HEAD = "b".repeat(40);

function session(over: Partial<SessionState> = {}): SessionState {
  return {
    ...initialSessionState({ id: "s1", repo: "acme/widgets", branch: "feat/widgets", prNumber: 7 }, T0),
    pr: facts(),
    status: "mergeable",
    lastActivityAt: T0,
    ...over,
  };
}
const snapshot = (f: Partial<PrFacts> = {}, observedAt = T0 + 1_000): SessionInput => ({
  type: "observe",
  observation: { kind: "snapshot", facts: facts({ observedAt, ...f }) },
  source: "poll",
});
const webhook = (observation: PrObservation): SessionInput => ({
  type: "observe",
  observation,
  source: "webhook",
});
const failing = { rollupState: "FAILURE", checks: [check({ conclusion: "FAILURE" })] };
const pending = {
  rollupState: "PENDING",
  checks: [check({ status: "IN_PROGRESS", conclusion: null, completedAt: null })],
};

interface Row {
  name: string;
  from: SessionState;
  input: SessionInput;
  now?: number;
  status: SessionState["status"];
  events: string[];
}

const rows: Row[] = [
  // Finding the PR
  {
    name: "detecting → working when the lookup finds no PR",
    from: session({ prNumber: null, pr: null, detectionDone: false, status: "detecting" }),
    input: { type: "not-found", source: "detection" },
    status: "working",
    events: ["status-changed"],
  },
  {
    name: "working stays working on a repeated not-found",
    from: session({ prNumber: null, pr: null, status: "working" }),
    input: { type: "not-found", source: "detection" },
    status: "working",
    events: [],
  },
  {
    name: "a found PR number keeps the session detecting until it is read",
    from: session({ prNumber: null, pr: null, status: "working" }),
    input: { type: "found", number: 7, source: "poll" },
    status: "detecting",
    events: ["status-changed"],
  },
  {
    name: "detecting → mergeable on the first read of a clean PR",
    from: session({ pr: null, status: "detecting" }),
    input: snapshot(),
    status: "mergeable",
    events: ["pr-detected", "approved-and-green", "status-changed"],
  },
  {
    name: "detecting → ci_failed on the first read of a failing PR",
    from: session({ pr: null, status: "detecting" }),
    input: snapshot(failing),
    status: "ci_failed",
    events: ["pr-detected", "ci-failed", "status-changed"],
  },
  {
    name: "working (no PR) → pr_open when a snapshot of its branch's PR arrives",
    from: session({ prNumber: null, pr: null, status: "working" }),
    input: snapshot(pending),
    status: "pr_open",
    events: ["pr-detected", "status-changed"],
  },
  {
    name: "a lookup never displaces an open PR",
    from: session(),
    input: { type: "found", number: 9, source: "poll" },
    status: "mergeable",
    events: [],
  },
  {
    name: "idle (closed PR) → detecting when a new PR is found on the branch",
    from: session({ pr: facts({ state: "CLOSED" }), status: "idle" }),
    input: { type: "found", number: 9, source: "poll" },
    status: "detecting",
    events: ["status-changed"],
  },
  // CI
  {
    name: "pr_open → ci_failed when CI fails",
    from: session({ pr: facts(pending), status: "pr_open" }),
    input: snapshot(failing),
    status: "ci_failed",
    events: ["ci-failed", "status-changed"],
  },
  {
    name: "ci_failed → mergeable when CI passes",
    from: session({ pr: facts(failing), status: "ci_failed" }),
    input: snapshot(),
    status: "mergeable",
    events: ["ci-passed", "approved-and-green", "status-changed"],
  },
  {
    name: "ci_failed → pr_open when a push restarts CI",
    from: session({ pr: facts(failing), status: "ci_failed" }),
    input: snapshot({ ...pending, headSha: NEW_HEAD, updatedAt: T0 + 1 }),
    status: "pr_open",
    events: ["status-changed"],
  },
  {
    name: "a failure on a new head is a new ci-failed",
    from: session({ pr: facts(failing), status: "ci_failed" }),
    input: snapshot({ ...failing, headSha: NEW_HEAD, updatedAt: T0 + 1 }),
    status: "ci_failed",
    events: ["ci-failed"],
  },
  {
    name: "approved → mergeable when CI goes green",
    from: session({ pr: facts({ ...pending, reviewDecision: "APPROVED" }), status: "approved" }),
    input: snapshot({ reviewDecision: "APPROVED" }),
    status: "mergeable",
    events: ["ci-passed", "approved-and-green", "status-changed"],
  },
  // Reviews
  {
    name: "pr_open → changes_requested",
    from: session({ pr: facts(pending), status: "pr_open" }),
    input: snapshot({ ...pending, reviewDecision: "CHANGES_REQUESTED", updatedAt: T0 + 1 }),
    status: "changes_requested",
    events: ["changes-requested", "status-changed"],
  },
  {
    name: "mergeable → review_pending when a review becomes required",
    from: session(),
    input: snapshot({ reviewDecision: "REVIEW_REQUIRED", updatedAt: T0 + 1 }),
    status: "review_pending",
    events: ["status-changed"],
  },
  {
    name: "review_pending → mergeable on approval",
    from: session({ pr: facts({ reviewDecision: "REVIEW_REQUIRED" }), status: "review_pending" }),
    input: snapshot({ reviewDecision: "APPROVED", updatedAt: T0 + 1 }),
    status: "mergeable",
    events: ["approved-and-green", "status-changed"],
  },
  {
    name: "changes_requested → approved (CI still pending)",
    from: session({
      pr: facts({ ...pending, reviewDecision: "CHANGES_REQUESTED" }),
      status: "changes_requested",
    }),
    input: snapshot({ ...pending, reviewDecision: "APPROVED", updatedAt: T0 + 1 }),
    status: "approved",
    events: ["status-changed"],
  },
  {
    name: "new unresolved review threads raise review-comments",
    from: session(),
    input: snapshot({ unresolvedThreadIds: ["t1", "t2"], updatedAt: T0 + 1 }),
    status: "mergeable",
    events: ["review-comments"],
  },
  {
    name: "resolving threads raises nothing",
    from: session({ pr: facts({ unresolvedThreadIds: ["t1"] }) }),
    input: snapshot({ unresolvedThreadIds: [], updatedAt: T0 + 1 }),
    status: "mergeable",
    events: [],
  },
  // Mergeability
  {
    name: "mergeable → pr_open on conflicts",
    from: session(),
    input: snapshot({ mergeable: "CONFLICTING", updatedAt: T0 + 1 }),
    status: "pr_open",
    events: ["merge-conflicts", "status-changed"],
  },
  {
    name: "conflicts already known raise nothing again",
    from: session({ pr: facts({ mergeable: "CONFLICTING" }), status: "pr_open" }),
    input: snapshot({ mergeable: "CONFLICTING", title: "t2", updatedAt: T0 + 1 }),
    status: "pr_open",
    events: [],
  },
  // End of the PR
  {
    name: "mergeable → merged",
    from: session(),
    input: snapshot({ state: "MERGED", updatedAt: T0 + 1 }),
    status: "merged",
    events: ["pr-merged", "status-changed"],
  },
  {
    name: "pr_open → idle when the PR is closed",
    from: session({ pr: facts(pending), status: "pr_open" }),
    input: snapshot({ ...pending, state: "CLOSED", updatedAt: T0 + 1 }),
    status: "idle",
    events: ["pr-closed", "status-changed"],
  },
  {
    name: "idle → mergeable when the PR is reopened",
    from: session({ pr: facts({ state: "CLOSED" }), status: "idle" }),
    input: snapshot({ updatedAt: T0 + 1 }),
    status: "mergeable",
    events: ["approved-and-green", "status-changed"],
  },
  {
    name: "a pull_request webhook merges at once",
    from: session(),
    input: webhook({
      kind: "pr-event",
      repo: "acme/widgets",
      number: 7,
      state: "MERGED",
      updatedAt: T0 + 5,
      observedAt: T0 + 5,
    }),
    status: "merged",
    events: ["pr-merged", "status-changed"],
  },
  {
    name: "a check_run webhook fails CI at once",
    from: session({ pr: facts(pending), status: "pr_open" }),
    input: webhook({
      kind: "check",
      repo: "acme/widgets",
      headSha: "a".repeat(40),
      check: check({ conclusion: "FAILURE", seenAt: T0 + 5 }),
    }),
    status: "ci_failed",
    events: ["ci-failed", "status-changed"],
  },
  // Agent reports and time
  {
    name: "pr_open → stuck when idle past the threshold",
    from: session({ pr: facts(pending), status: "pr_open" }),
    input: { type: "tick" },
    now: T0 + 600_000,
    status: "stuck",
    events: ["agent-stuck", "status-changed"],
  },
  {
    name: "pr_open stays before the threshold",
    from: session({ pr: facts(pending), status: "pr_open" }),
    input: { type: "tick" },
    now: T0 + 599_999,
    status: "pr_open",
    events: [],
  },
  {
    name: "working → stuck when the agent went quiet",
    from: session({ prNumber: null, pr: null, status: "working" }),
    input: { type: "tick" },
    now: T0 + 600_000,
    status: "stuck",
    events: ["agent-stuck", "status-changed"],
  },
  {
    name: "stuck → pr_open on agent activity",
    from: session({ pr: facts(pending), status: "stuck" }),
    input: { type: "report", report: "activity" },
    now: T0 + 700_000,
    status: "pr_open",
    events: ["status-changed"],
  },
  {
    name: "stuck → pr_open when the PR moves",
    from: session({ pr: facts(pending), status: "stuck" }),
    input: snapshot({ ...pending, headSha: NEW_HEAD, updatedAt: T0 + 1 }, T0 + 700_000),
    now: T0 + 700_000,
    status: "pr_open",
    events: ["status-changed"],
  },
  {
    name: "→ needs_input when the agent waits for a human",
    from: session(),
    input: { type: "report", report: "needs-input" },
    status: "needs_input",
    events: ["agent-needs-input", "status-changed"],
  },
  {
    name: "needs_input → back to the PR's status on activity",
    from: session({ needsInput: true, status: "needs_input" }),
    input: { type: "report", report: "activity" },
    status: "mergeable",
    events: ["approved-and-green", "status-changed"],
  },
  {
    name: "needs_input holds while CI fails",
    from: session({ needsInput: true, status: "needs_input" }),
    input: snapshot(failing),
    status: "needs_input",
    events: ["ci-failed"],
  },
  {
    name: "→ killed when the agent exits",
    from: session(),
    input: { type: "report", report: "exited" },
    status: "killed",
    events: ["agent-exited", "status-changed"],
  },
  {
    name: "→ killed when the session is killed",
    from: session(),
    input: { type: "report", report: "killed" },
    status: "killed",
    events: ["status-changed"],
  },
  {
    name: "→ done when the orchestrator says so",
    from: session(),
    input: { type: "report", report: "done" },
    status: "done",
    events: ["status-changed"],
  },
  // Terminal statuses absorb everything
  {
    name: "merged ignores a later snapshot",
    from: session({ pr: facts({ state: "MERGED" }), status: "merged" }),
    input: snapshot(failing),
    status: "merged",
    events: [],
  },
  {
    name: "killed ignores reports",
    from: session({ status: "killed" }),
    input: { type: "report", report: "activity" },
    status: "killed",
    events: [],
  },
  // Repeated and stale inputs
  {
    name: "the same snapshot twice raises nothing",
    from: session({ pr: facts({ observedAt: T0 + 1_000 }) }),
    input: snapshot(),
    status: "mergeable",
    events: [],
  },
  {
    name: "a snapshot older than the facts raises nothing",
    from: session({ pr: facts({ ...failing, updatedAt: T0 + 10 }), status: "ci_failed" }),
    input: snapshot(),
    status: "ci_failed",
    events: [],
  },
  {
    name: "a snapshot of a different PR is ignored",
    from: session(),
    input: snapshot({ number: 8, ...failing }),
    status: "mergeable",
    events: [],
  },
];

describe("session state machine", () => {
  it.each(rows)("$name", ({ from, input, now, status, events }) => {
    const result = transition(from, input, now ?? T0 + 1_000, OPTIONS);
    expect(result.state.status).toBe(status);
    expect(result.events.map((e) => e.type)).toEqual(events);
    for (const event of result.events) {
      expect(event.status).toBe(status);
      expect(event.previousStatus).toBe(from.status);
      expect(event.sessionId).toBe("s1");
    }
  });

  it("numbers events from the session's sequence and carries the PR data that caused them", () => {
    const result = transition(
      session({ pr: facts(pending), status: "pr_open", eventSeq: 4 }),
      snapshot(failing),
      T0 + 1_000,
      OPTIONS,
    );
    expect(result.events.map((e) => e.id)).toEqual(["s1:5", "s1:6"]);
    expect(result.state.eventSeq).toBe(6);
    expect(result.events[0]).toMatchObject({
      prKey: "acme/widgets#7",
      prUrl: "https://github.com/acme/widgets/pull/7",
      headSha: "a".repeat(40),
      pr: { state: "open", ciStatus: "failing", mergeable: false },
      source: "poll",
      at: T0 + 1_000,
    });
  });

  it("lists the new thread ids on review-comments", () => {
    const result = transition(
      session({ pr: facts({ unresolvedThreadIds: ["t1"] }) }),
      snapshot({ unresolvedThreadIds: ["t1", "t2"], updatedAt: T0 + 1 }),
      T0 + 1_000,
      OPTIONS,
    );
    expect(result.events[0]).toMatchObject({ type: "review-comments", threads: ["t2"] });
  });

  describe("when webhook deliveries arrive out of order or twice", () => {
    const run = (start: SessionState, inputs: SessionInput[]) => {
      let state = start;
      const seen: string[][] = [];
      for (const input of inputs) {
        const result = transition(state, input, T0 + 2_000, OPTIONS);
        state = result.state;
        seen.push(result.events.map((e) => e.type));
      }
      return { state, seen };
    };
    const close = (updatedAt: number): SessionInput =>
      webhook({
        kind: "pr-event",
        repo: "acme/widgets",
        number: 7,
        state: "CLOSED",
        updatedAt,
        observedAt: T0,
      });
    const reopen = (updatedAt: number): SessionInput =>
      webhook({
        kind: "pr-event",
        repo: "acme/widgets",
        number: 7,
        state: "OPEN",
        updatedAt,
        observedAt: T0,
      });

    it("ignores a poll answer requested before the webhook-triggered refresh already applied", () => {
      const { state, seen } = run(session({ pr: facts(pending), status: "pr_open" }), [
        snapshot(failing, T0 + 20),
        snapshot(pending, T0 + 10),
      ]);
      expect(seen).toEqual([["ci-failed", "status-changed"], []]);
      expect(state.status).toBe("ci_failed");
    });

    it("raises a redelivered check_run once", () => {
      const failure = webhook({
        kind: "check",
        repo: "acme/widgets",
        headSha: "a".repeat(40),
        check: check({ conclusion: "FAILURE", seenAt: T0 + 5 }),
      });
      const { seen } = run(session({ pr: facts(pending), status: "pr_open" }), [failure, failure]);
      expect(seen).toEqual([["ci-failed", "status-changed"], []]);
    });

    it("keeps the later of close/reopen whichever arrives first", () => {
      const inOrder = run(session(), [close(T0 + 5), reopen(T0 + 8)]);
      const swapped = run(session(), [reopen(T0 + 8), close(T0 + 5)]);
      expect(inOrder.state.pr?.state).toBe("OPEN");
      expect(swapped.state.pr?.state).toBe("OPEN");
      expect(swapped.seen).toEqual([[], []]);
    });

    it("ignores a check_run for a head the session no longer has", () => {
      const { seen, state } = run(session(), [
        snapshot({ ...pending, headSha: NEW_HEAD, updatedAt: T0 + 1 }),
        webhook({
          kind: "check",
          repo: "acme/widgets",
          headSha: "a".repeat(40),
          check: check({ conclusion: "FAILURE", seenAt: T0 + 5 }),
        }),
      ]);
      expect(seen[1]).toEqual([]);
      expect(state.status).toBe("pr_open");
    });
  });
});
