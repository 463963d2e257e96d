import { describe, expect, it } from "vitest";
import { fillPath, fillValue, templateFromRow, templatePath } from "../../../bench/core/capture-template.js";

describe("templateFromRow", () => {
  it("replaces the capture's fixed values by key, keeping gh's document byte for byte", () => {
    const query = "\n\tquery PullRequestByNumber($owner: String!, $repo: String!, $pr_number: Int!) {\n\t}";
    const t = templateFromRow(
      {
        t: 10,
        method: "POST",
        path: "/graphql",
        query: "",
        headers: {
          Host: "api.github.localhost",
          "Content-Length": "9",
          Accept: "a",
          "Graphql-Features": "merge_queue",
          "Authorization-present": true,
        },
        body: { query, variables: { owner: "o", repo: "r", pr_number: 5, limit: 5 } },
      },
      9.5,
    );
    expect(t.query).toBe(query);
    expect(t.operationName).toBe("PullRequestByNumber");
    expect(t.variables).toEqual({ owner: "{{owner}}", repo: "{{repo}}", pr_number: "{{pr}}", limit: 5 });
    expect(t.headers).toEqual({ accept: "a", "graphql-features": "merge_queue" });
    expect(t.atS).toBe(0.5);
  });

  it("templates node ids by what they name", () => {
    const t = templateFromRow(
      {
        t: 0,
        method: "POST",
        path: "/graphql",
        query: "",
        headers: {},
        body: {
          query: "mutation X { a }",
          variables: { input: { pullRequestId: "PU_1", body: "hi" }, id: "IS_2" },
        },
      },
      0,
    );
    expect(t.variables).toEqual({
      input: { pullRequestId: "{{prNodeId}}", body: "{{body}}" },
      id: "{{issueNodeId}}",
    });
  });
});

describe("templatePath / fillPath", () => {
  it("templates REST paths segment by segment", () => {
    expect(templatePath("/repos/o/r/actions/runs/1001/jobs", "")).toBe(
      "/repos/{{owner}}/{{repo}}/actions/runs/{{runId}}/jobs",
    );
    expect(templatePath("/repos/o/r/actions/runs", "per_page=20&branch=feature")).toBe(
      "/repos/{{owner}}/{{repo}}/actions/runs?per_page=20&branch={{branch}}",
    );
    expect(templatePath("/repos/o/r/git/refs/heads/feature", "")).toBe(
      "/repos/{{owner}}/{{repo}}/git/refs/heads/{{branch}}",
    );
  });

  it("keeps a branch's slash in the path (as gh does) but form-encodes it in the query", () => {
    const b = { owner: "acme", repo: "widgets", branch: "ao/s1" };
    expect(fillPath("/repos/{{owner}}/{{repo}}/git/refs/heads/{{branch}}", b)).toBe(
      "/repos/acme/widgets/git/refs/heads/ao/s1",
    );
    expect(fillPath("/repos/{{owner}}/{{repo}}/actions/runs?branch={{branch}}", b)).toBe(
      "/repos/acme/widgets/actions/runs?branch=ao%2Fs1",
    );
  });

  it("refuses a missing binding instead of sending a placeholder to GitHub", () => {
    expect(() => fillPath("/repos/{{owner}}", {})).toThrow(/no binding for \{\{owner\}\}/);
    expect(() => fillValue({ n: "{{pr}}" }, {})).toThrow(/\{\{pr\}\}/);
  });
});

describe("fillValue", () => {
  it("gives a whole-string placeholder the binding's type", () => {
    expect(
      fillValue(
        { owner: "{{owner}}", pr_number: "{{pr}}", states: ["OPEN"], note: "x {{pr}}" },
        { owner: "acme", pr: 12 },
      ),
    ).toEqual({
      owner: "acme",
      pr_number: 12,
      states: ["OPEN"],
      note: "x {{pr}}",
    });
  });
});
