import { describe, expect, it } from "vitest";
import { DEFAULT_SCENARIO } from "../../../github-sim/core/default-scenario.js";
import { mergeStateStatus, reviewDecision, rollupState } from "../../../github-sim/core/derived-state.js";
import { loadScenario } from "../../../github-sim/core/load-scenario.js";
import { parseScenario } from "../../../github-sim/core/scenario-schema.js";

const T0 = 1_800_000_000_000;

function load(extra: Record<string, unknown> = {}) {
  const parsed = parseScenario({ ...DEFAULT_SCENARIO, ...extra });
  if (!parsed.ok) throw new Error(parsed.message);
  return loadScenario(parsed.value, { now: () => T0 });
}

describe("the default world", () => {
  const { world } = load();
  const repo = world.requireRepo("acme/widgets");

  it("has PRs #1–#3, issues #10–#12 and viewer octocat with user id 1", () => {
    expect([...repo.pulls.keys()]).toEqual([1, 2, 3]);
    expect([...repo.issues.keys()]).toEqual([10, 11, 12]);
    expect(world.user(world.viewer)).toMatchObject({ login: "octocat", id: 1 });
  });

  it("puts run 1001 with jobs 2001–2003 on PR #1's head commit under workflow 42", () => {
    const pr = repo.pulls.get(1);
    const run = repo.runs.get(1001);
    expect(run).toMatchObject({
      workflowId: 42,
      headSha: pr?.headSha,
      jobIds: [2001, 2002, 2003],
      conclusion: "failure",
    });
    expect(repo.checkRuns.get(2002)?.annotations).toHaveLength(1);
  });

  it.each([
    { pr: 1, rollup: "FAILURE", decision: "CHANGES_REQUESTED", merge: "BLOCKED" },
    { pr: 2, rollup: "SUCCESS", decision: "APPROVED", merge: "CLEAN" },
    { pr: 3, rollup: "PENDING", decision: "REVIEW_REQUIRED", merge: "DRAFT" },
  ])(
    "derives PR #$pr's CI $rollup, review $decision, merge state $merge",
    ({ pr, rollup, decision, merge }) => {
      const p = repo.pulls.get(pr);
      if (!p) throw new Error("missing");
      expect(rollupState(repo, repo.commits.get(p.headSha))).toBe(rollup);
      expect(reviewDecision(repo, p)).toBe(decision);
      expect(mergeStateStatus(repo, p)).toBe(merge);
    },
  );

  it("stands still: nothing is scheduled and the change log is empty", () => {
    const loaded = load();
    expect(loaded.engine.pending()).toBe(0);
    expect(loaded.world.changes()).toEqual([]);
  });

  it("is deterministic: two loads give the same SHAs and node ids", () => {
    const other = load().world.requireRepo("acme/widgets");
    expect(other.pulls.get(1)?.headSha).toBe(repo.pulls.get(1)?.headSha);
    expect(other.pulls.get(2)?.nodeId).toBe(repo.pulls.get(2)?.nodeId);
  });
});

describe("generated PRs", () => {
  it("adds open PRs #101.. on gen/pr-<n> with passing CI", () => {
    const parsed = parseScenario(DEFAULT_SCENARIO);
    if (!parsed.ok) throw new Error(parsed.message);
    const [first] = parsed.value.repos;
    if (!first) throw new Error("no repo");
    const { world } = loadScenario(
      { ...parsed.value, repos: [{ ...first, generatedPulls: 3 }] },
      { now: () => T0 },
    );
    const repo = world.requireRepo("acme/widgets");
    expect([...repo.pulls.keys()]).toEqual([1, 2, 3, 101, 102, 103]);
    const pr = repo.pulls.get(102);
    expect(pr?.headRef).toBe("gen/pr-102");
    expect(rollupState(repo, repo.commits.get(pr?.headSha ?? ""))).toBe("SUCCESS");
  });
});
