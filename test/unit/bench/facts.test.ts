import { describe, expect, it } from "vitest";
import {
  checksValue,
  extractFacts,
  prChecksKey,
  prStateKey,
  pullRequestFacts,
  runKey,
} from "../../../bench/core/facts.js";

const REPO = "acme/widgets";
const rollup = (nodes: unknown[], hasNextPage = false) => ({
  nodes: [
    { commit: { statusCheckRollup: { contexts: { nodes, pageInfo: { hasNextPage, endCursor: null } } } } },
  ],
});

describe("checksValue", () => {
  it("is order-free and case-free, so GraphQL's enums equal the model's words", () => {
    const a = checksValue([
      { name: "test", status: "COMPLETED", conclusion: "FAILURE" },
      { name: "build", status: "IN_PROGRESS", conclusion: null },
    ]);
    const b = checksValue([
      { name: "build", status: "in_progress", conclusion: null },
      { name: "test", status: "completed", conclusion: "failure" },
    ]);
    expect(a).toBe(b);
    expect(a).toBe("build:in_progress:|test:completed:failure");
    expect(checksValue([])).toBe("none");
  });
});

describe("extractFacts", () => {
  describe("when gh pr checks reads a page of contexts (PullRequestStatusChecks)", () => {
    it("states the PR's checks", () => {
      const body = {
        data: {
          node: {
            statusCheckRollup: rollup([
              { __typename: "CheckRun", name: "build", status: "COMPLETED", conclusion: "SUCCESS" },
              { __typename: "StatusContext", context: "ci/coverage", state: "SUCCESS" },
            ]),
          },
        },
      };
      expect(extractFacts("PullRequestStatusChecks", { repo: REPO, pr: 12 }, body)).toEqual([
        { key: prChecksKey(REPO, 12), value: "build:completed:success|ci/coverage=success" },
      ]);
    });

    it("states nothing when a next page exists (the answer is partial)", () => {
      const body = { data: { node: { statusCheckRollup: rollup([{ name: "a", status: "QUEUED" }], true) } } };
      expect(extractFacts("PullRequestStatusChecks", { repo: REPO, pr: 12 }, body)).toEqual([]);
    });
  });

  it("reads state and checks from gh pr view and AO's enrichment (commits(last: 1))", () => {
    const pr = {
      state: "MERGED",
      commits: rollup([{ name: "lint", status: "COMPLETED", conclusion: "SUCCESS" }]),
    };
    expect(pullRequestFacts(REPO, 3, pr)).toEqual([
      { key: prStateKey(REPO, 3), value: "MERGED" },
      { key: prChecksKey(REPO, 3), value: "lint:completed:success" },
    ]);
    const view = { data: { repository: { pullRequest: { state: "OPEN", number: 3 } } } };
    expect(extractFacts("PullRequestByNumber", { repo: REPO, pr: 3 }, view)).toEqual([
      { key: prStateKey(REPO, 3), value: "OPEN" },
    ]);
  });

  it("says 'none' for a head commit without checks", () => {
    const pr = { statusCheckRollup: { nodes: [{ commit: { statusCheckRollup: null } }] } };
    expect(pullRequestFacts(REPO, 4, pr)).toEqual([{ key: prChecksKey(REPO, 4), value: "none" }]);
  });

  it("reads a workflow run's status and its jobs from REST answers", () => {
    expect(
      extractFacts("run", { repo: REPO, runId: 7 }, { status: "completed", conclusion: "failure" }),
    ).toEqual([{ key: runKey(REPO, 7), value: "completed:failure" }]);
    const jobs = {
      total_count: 2,
      jobs: [
        { name: "b", status: "queued", conclusion: null },
        { name: "a", status: "completed", conclusion: "success" },
      ],
    };
    expect(extractFacts("jobs", { repo: REPO, runId: 7 }, jobs)[0]?.value).toBe(
      "a:completed:success|b:queued:",
    );
    expect(extractFacts("jobs", { repo: REPO, runId: 7 }, { total_count: 5, jobs: [] })).toEqual([]);
  });

  it("states nothing for operations it does not know, or without the subject's number", () => {
    expect(extractFacts("IssueByNumber", { repo: REPO }, { data: {} })).toEqual([]);
    expect(
      extractFacts(
        "PullRequestByNumber",
        { repo: REPO },
        { data: { repository: { pullRequest: { state: "OPEN" } } } },
      ),
    ).toEqual([]);
    expect(extractFacts("run", { repo: REPO, runId: 1 }, "not json")).toEqual([]);
  });
});
