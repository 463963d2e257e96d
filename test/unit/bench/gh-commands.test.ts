import { describe, expect, it } from "vitest";
import { GH_223_CAPTURES } from "../../../bench/replay/gh-2.23-requests.generated.js";
import * as gh from "../../../bench/replay/gh-commands.js";
import type { PreparedRequest, ReplayAnswer, ReplayContext } from "../../../bench/replay/replay-types.js";

type Responder = (request: PreparedRequest, index: number) => unknown;

/** A replay context that answers from a function and records every request and sleep. */
function fakeContext(respond: Responder) {
  const sent: PreparedRequest[] = [];
  const sleeps: number[] = [];
  const ctx: ReplayContext = {
    bindings: { owner: "acme", repo: "widgets", issue: 7, pr: 12, branch: "ao/s1", base: "main" },
    send: async (request) => {
      sent.push(request);
      const json = respond(request, sent.length - 1);
      return { status: 200, headers: {}, json, ok: true, rateLimited: false } satisfies ReplayAnswer;
    },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ghCache: { introspected: false },
  };
  return { ctx, sent, sleeps };
}

const checks = (statuses: string[]) => ({
  data: {
    node: {
      statusCheckRollup: {
        nodes: [
          {
            commit: {
              statusCheckRollup: {
                contexts: {
                  nodes: statuses.map((s, i) => ({
                    name: `job${i}`,
                    status: s,
                    conclusion: s === "COMPLETED" ? "SUCCESS" : null,
                  })),
                  pageInfo: { hasNextPage: false },
                },
              },
            },
          },
        ],
      },
    },
  },
});
const prNode = { data: { repository: { pullRequest: { id: "PR_node12", number: 12 } } } };

describe("gh command replays", () => {
  it("send gh's captured document with the session's own numbers", async () => {
    const { ctx, sent } = fakeContext(() => ({ data: {} }));
    await gh.issueView(ctx, false);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.graphql?.query).toBe(GH_223_CAPTURES.issue_view?.[0]?.query);
    expect(sent[0]?.graphql?.variables).toEqual({ number: 7, owner: "acme", repo: "widgets" });
    expect(sent[0]?.headers["graphql-features"]).toBe("merge_queue");
  });

  it("`pr checks --watch` polls every 10 s until nothing is pending, using the node id from the first answer", async () => {
    let polls = 0;
    const { ctx, sent, sleeps } = fakeContext((r) => {
      if (r.operation === "PullRequestByNumber") return prNode;
      polls++;
      return checks(polls < 3 ? ["IN_PROGRESS", "COMPLETED"] : ["COMPLETED", "COMPLETED"]);
    });
    const outcome = await gh.prChecksWatch(ctx, 600_000);
    expect(outcome).toEqual({ ok: true, rateLimited: false, value: { total: 2, pending: 0, failed: 0 } });
    expect(sent.map((r) => r.operation)).toEqual([
      "PullRequestByNumber",
      "PullRequestStatusChecks",
      "PullRequestStatusChecks",
      "PullRequestStatusChecks",
    ]);
    expect(sent[1]?.graphql?.variables).toEqual({ id: "PR_node12" });
    expect(sleeps).toEqual([10_000, 10_000]);
  });

  it("`run watch` polls run, workflow and jobs every 3 s and asks each job's annotations once", async () => {
    let round = 0;
    const { ctx, sent, sleeps } = fakeContext((r) => {
      if (r.operation === "run") {
        round++;
        return { status: round < 4 ? "in_progress" : "completed", conclusion: round < 4 ? null : "success" };
      }
      if (r.operation === "jobs") return { total_count: 2, jobs: [{ id: 2001 }, { id: 2002 }] };
      return {};
    });
    const outcome = await gh.runWatch(
      ctx,
      { runId: 1001, workflowId: 42, status: "in_progress", conclusion: null },
      600_000,
    );
    expect(outcome.value).toBe("success");
    const annotations = sent.filter((r) => r.path.endsWith("/annotations")).map((r) => r.path);
    expect(annotations).toEqual([
      "/repos/acme/widgets/check-runs/2001/annotations",
      "/repos/acme/widgets/check-runs/2002/annotations",
    ]);
    expect(sleeps.every((s) => s === 3000)).toBe(true);
    expect(sent[0]?.path).toBe("/repos/acme/widgets/actions/runs/1001?exclude_pull_requests=true");
    expect(sent.filter((r) => r.operation === "PullRequestForRun")).toHaveLength(1);
  });

  it("`run watch` on a finished run stops after the run and its workflow (gh: already completed)", async () => {
    const { ctx, sent } = fakeContext((r) =>
      r.operation === "run" ? { status: "completed", conclusion: "failure" } : {},
    );
    const outcome = await gh.runWatch(
      ctx,
      { runId: 5, workflowId: 42, status: "completed", conclusion: "failure" },
      1000,
    );
    expect(outcome.ok).toBe(false);
    expect(sent).toHaveLength(2);
  });

  it("`pr merge` introspects PullRequest's fields only while gh's cache is cold", async () => {
    const { ctx, sent } = fakeContext((r) => (r.operation === "PullRequestByNumber" ? prNode : { data: {} }));
    await gh.prMerge(ctx);
    await gh.prMerge(ctx);
    expect(sent.map((r) => r.operation)).toEqual([
      "PullRequest_fields",
      "PullRequestByNumber",
      "PullRequestMerge",
      "DELETE /repos/{owner}/{repo}/git/refs/heads/{branch}",
      "PullRequestByNumber",
      "PullRequestMerge",
      "DELETE /repos/{owner}/{repo}/git/refs/heads/{branch}",
    ]);
    expect(sent[2]?.graphql?.variables).toEqual({
      input: { pullRequestId: "PR_node12", mergeMethod: "SQUASH" },
    });
    expect(sent[3]?.path).toBe("/repos/acme/widgets/git/refs/heads/ao/s1");
  });

  it("`pr create` reads the repository id, checks for an open PR, creates it and returns its number", async () => {
    const { ctx, sent } = fakeContext((r) => {
      if (r.operation === "RepositoryInfo") return { data: { repository: { id: "R_1" } } };
      if (r.operation === "PullRequestForBranch")
        return { data: { repository: { pullRequests: { nodes: [] } } } };
      return {
        data: {
          createPullRequest: {
            pullRequest: { id: "PR_9", url: "http://github.localhost/acme/widgets/pull/31" },
          },
        },
      };
    });
    const outcome = await gh.prCreate(ctx, "Fix #7", "Closes #7.");
    expect(outcome).toEqual({ ok: true, rateLimited: false, value: 31 });
    expect(sent[2]?.graphql?.variables).toEqual({
      input: {
        baseRefName: "main",
        body: "Closes #7.",
        draft: false,
        headRefName: "ao/s1",
        maintainerCanModify: true,
        repositoryId: "R_1",
        title: "Fix #7",
      },
    });
  });

  it("stops a command at a rate-limited answer, as gh does", async () => {
    const sent: PreparedRequest[] = [];
    const ctx: ReplayContext = {
      ...fakeContext(() => ({})).ctx,
      send: async (r) => {
        sent.push(r);
        return {
          status: 200,
          headers: {},
          json: { errors: [{ type: "RATE_LIMITED" }] },
          ok: false,
          rateLimited: true,
        };
      },
    };
    expect(await gh.prChecks(ctx)).toEqual({ ok: false, rateLimited: true });
    expect(sent).toHaveLength(1);
  });

  it("summarizes checks as gh reads them", () => {
    expect(gh.summarizeChecks(checks(["COMPLETED", "QUEUED"]).data.node.statusCheckRollup)).toEqual({
      total: 2,
      pending: 1,
      failed: 0,
    });
  });
});
