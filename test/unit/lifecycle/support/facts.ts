/** Builders for PrFacts and checks in lifecycle unit tests: sensible open-PR defaults, overridable. */
import type { CheckFact, PrFacts } from "../../../../lifecycle/core/pr-facts.js";

export const T0 = Date.UTC(2026, 3, 1, 12, 0, 0);

export function check(overrides: Partial<CheckFact> = {}): CheckFact {
  return {
    kind: "check-run",
    name: "build",
    status: "COMPLETED",
    conclusion: "SUCCESS",
    url: "https://ci.example/1",
    startedAt: T0,
    completedAt: T0 + 60_000,
    ...overrides,
  };
}

export function facts(overrides: Partial<PrFacts> = {}): PrFacts {
  return {
    repo: "acme/widgets",
    number: 7,
    url: "https://github.com/acme/widgets/pull/7",
    title: "Add widgets",
    state: "OPEN",
    isDraft: false,
    additions: 10,
    deletions: 2,
    mergeable: "MERGEABLE",
    mergeStateStatus: "CLEAN",
    reviewDecision: null,
    headRefName: "feat/widgets",
    baseRefName: "main",
    headSha: "a".repeat(40),
    updatedAt: T0,
    rollupState: "SUCCESS",
    checks: [check()],
    checksTotal: 1,
    unresolvedThreadIds: [],
    reviews: [],
    observedAt: T0,
    ...overrides,
  };
}
