import { describe, expect, it } from "vitest";
import { mergeObservation, type PrObservation } from "../../../lifecycle/core/merge-observation.js";
import type { PrFacts } from "../../../lifecycle/core/pr-facts.js";
import { check, facts, T0 } from "./support/facts.js";

const snap = (f: Partial<PrFacts>): PrObservation => ({ kind: "snapshot", facts: facts(f) });
const running = check({ status: "IN_PROGRESS", conclusion: null, completedAt: null });
const failed = check({ conclusion: "FAILURE", completedAt: T0 + 90_000 });
const prEvent = (over: Partial<Extract<PrObservation, { kind: "pr-event" }>> = {}): PrObservation => ({
  kind: "pr-event",
  repo: "acme/widgets",
  number: 7,
  state: "OPEN",
  updatedAt: T0 + 5_000,
  observedAt: T0 + 5_000,
  ...over,
});
const checkObs = (c = failed, headSha = "a".repeat(40)): PrObservation => ({
  kind: "check",
  repo: "acme/widgets",
  headSha,
  check: { ...c, seenAt: T0 + 100_000 },
});

describe("mergeObservation", () => {
  it.each([
    {
      name: "a first snapshot is applied",
      current: undefined,
      obs: snap({}),
      outcome: "applied",
      changed: true,
    },
    {
      name: "the same snapshot again changes nothing",
      current: facts(),
      obs: snap({}),
      outcome: "unchanged",
      changed: false,
    },
    {
      name: "a snapshot with a newer updatedAt is applied",
      current: facts(),
      obs: snap({ updatedAt: T0 + 1, title: "x" }),
      outcome: "applied",
      changed: true,
    },
    {
      name: "a snapshot with an older updatedAt is stale",
      current: facts({ updatedAt: T0 + 10 }),
      obs: snap({ title: "old" }),
      outcome: "stale",
      changed: false,
    },
    {
      name: "a snapshot of the same version requested earlier is stale (poll answer older than a webhook refresh)",
      current: facts({ observedAt: T0 + 20, rollupState: "FAILURE", checks: [failed] }),
      obs: snap({ observedAt: T0 + 10, rollupState: "PENDING", checks: [running] }),
      outcome: "stale",
      changed: false,
    },
    {
      name: "a same-version snapshot requested later wins (CI moved without updatedAt)",
      current: facts({ rollupState: "PENDING", checks: [running] }),
      obs: snap({ observedAt: T0 + 10, rollupState: "FAILURE", checks: [failed] }),
      outcome: "applied",
      changed: true,
    },
    {
      name: "a snapshot of another PR replaces the facts",
      current: facts(),
      obs: snap({ number: 8 }),
      outcome: "applied",
      changed: true,
    },
    {
      name: "a pr-event without facts has no base",
      current: undefined,
      obs: prEvent(),
      outcome: "no-base",
      changed: false,
    },
    {
      name: "a pr-event older than the facts is stale",
      current: facts({ updatedAt: T0 + 9_000 }),
      obs: prEvent(),
      outcome: "stale",
      changed: false,
    },
    {
      name: "a redelivered pr-event (same updatedAt) is stale",
      current: facts({ updatedAt: T0 + 5_000 }),
      obs: prEvent({ state: "CLOSED" }),
      outcome: "stale",
      changed: false,
    },
    {
      name: "a newer pr-event closing the PR is applied",
      current: facts(),
      obs: prEvent({ state: "MERGED" }),
      outcome: "applied",
      changed: true,
    },
    {
      name: "a check for another head is refused",
      current: facts(),
      obs: checkObs(failed, "b".repeat(40)),
      outcome: "other-head",
      changed: false,
    },
    {
      name: "a check without facts has no base",
      current: undefined,
      obs: checkObs(),
      outcome: "no-base",
      changed: false,
    },
    {
      name: "a check further along is applied",
      current: facts({ rollupState: "PENDING", checks: [running] }),
      obs: checkObs(failed),
      outcome: "applied",
      changed: true,
    },
    {
      name: "a check behind the held one is stale",
      current: facts({ rollupState: "FAILURE", checks: [failed] }),
      obs: checkObs(running),
      outcome: "stale",
      changed: false,
    },
    {
      name: "the same check twice is unchanged",
      current: facts({ rollupState: "FAILURE", checks: [failed] }),
      obs: checkObs(failed),
      outcome: "unchanged",
      changed: false,
    },
  ])("$name", ({ current, obs, outcome, changed }) => {
    const result = mergeObservation(current, obs);
    expect(result.outcome).toBe(outcome);
    expect(result.changed).toBe(changed);
    if (outcome === "stale" || outcome === "no-base" || outcome === "other-head")
      expect(result.facts).toBe(current);
  });

  describe("when a webhook check overtakes a poll", () => {
    it("recomputes the rollup from the checks", () => {
      const result = mergeObservation(facts({ rollupState: "PENDING", checks: [running] }), checkObs(failed));
      expect(result.facts?.rollupState).toBe("FAILURE");
    });

    it("keeps the webhook's newer check when an older-requested snapshot of the same version lands", () => {
      const afterWebhook = mergeObservation(
        facts({ rollupState: "PENDING", checks: [running] }),
        checkObs(failed),
      ).facts;
      const poll = mergeObservation(
        afterWebhook,
        snap({ observedAt: T0 + 50, rollupState: "PENDING", checks: [running] }),
      );
      expect(poll.outcome).toBe("unchanged");
      expect(poll.facts?.checks[0]?.conclusion).toBe("FAILURE");
      expect(poll.facts?.rollupState).toBe("FAILURE");
    });

    it("keeps a check only a webhook has seen, when it arrived after the snapshot was requested", () => {
      const lint = check({ name: "lint", status: "QUEUED", conclusion: null, completedAt: null });
      const held = mergeObservation(facts(), checkObs(lint)).facts;
      expect(held?.rollupState).toBe("PENDING");
      const poll = mergeObservation(held, snap({ observedAt: T0 + 50 }));
      expect(poll.facts?.checks.map((c) => c.name)).toEqual(["build", "lint"]);
      expect(poll.facts?.rollupState).toBe("PENDING");
      const later = mergeObservation(held, snap({ observedAt: T0 + 200_000 }));
      expect(later.facts?.checks.map((c) => c.name)).toEqual(["build"]);
    });

    it("a re-run (later start) replaces a completed failure", () => {
      const rerun = check({ status: "QUEUED", conclusion: null, startedAt: T0 + 200_000, completedAt: null });
      const result = mergeObservation(facts({ rollupState: "FAILURE", checks: [failed] }), checkObs(rerun));
      expect(result.outcome).toBe("applied");
      expect(result.facts?.rollupState).toBe("PENDING");
    });
  });

  describe("when a pull_request webhook moves the head", () => {
    it("clears the old head's checks and marks CI pending and mergeability unknown", () => {
      const result = mergeObservation(facts(), prEvent({ headSha: "c".repeat(40) }));
      expect(result.facts).toMatchObject({
        headSha: "c".repeat(40),
        checks: [],
        rollupState: "PENDING",
        mergeable: "UNKNOWN",
      });
    });

    it("leaves CI as none for a repository without checks", () => {
      const result = mergeObservation(
        facts({ rollupState: null, checks: [], checksTotal: 0 }),
        prEvent({ headSha: "c".repeat(40) }),
      );
      expect(result.facts?.rollupState).toBeNull();
    });
  });
});
