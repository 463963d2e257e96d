import { describe, expect, it } from "vitest";
import { requestSpanName, routeTemplate, safeUrl } from "../../../otel/index.js";

describe("routeTemplate", () => {
  it.each([
    { path: "/repos/acme/widgets/pulls/12?per_page=1", route: "/repos/{owner}/{repo}/pulls/{number}" },
    { path: "/repos/acme/widgets/pulls", route: "/repos/{owner}/{repo}/pulls" },
    {
      path: "/repos/acme/widgets/commits/0123456789abcdef0123456789abcdef01234567/check-runs",
      route: "/repos/{owner}/{repo}/commits/{ref}/check-runs",
    },
    { path: "/repos/acme/widgets/commits/main/status", route: "/repos/{owner}/{repo}/commits/{ref}/status" },
    { path: "/repos/acme/widgets/contents/src/a/b.ts", route: "/repos/{owner}/{repo}/contents/{path}" },
    { path: "/repos/acme/widgets/git/refs/heads/feature/x", route: "/repos/{owner}/{repo}/git/refs/{ref}" },
    {
      path: "/repos/acme/widgets/actions/runs/1001/jobs",
      route: "/repos/{owner}/{repo}/actions/runs/{number}/jobs",
    },
    { path: "/users/octocat", route: "/users/{username}" },
    { path: "/rate_limit", route: "/rate_limit" },
    { path: "/", route: "/" },
  ])("$path → $route", ({ path, route }) => {
    expect(routeTemplate(path)).toBe(route);
  });
});

describe("requestSpanName", () => {
  it("names GraphQL by operation and REST by method and route", () => {
    expect(requestSpanName({ method: "POST", path: "/graphql", operationName: "PullRequestByNumber" })).toBe(
      "graphql PullRequestByNumber",
    );
    expect(requestSpanName({ method: "POST", path: "/graphql" })).toBe("graphql anonymous");
    expect(requestSpanName({ method: "get", path: "/repos/a/b/issues/3" })).toBe(
      "GET /repos/{owner}/{repo}/issues/{number}",
    );
  });
});

describe("safeUrl", () => {
  it("drops user-info and credential-like query values, keeps the rest", () => {
    expect(safeUrl("https://user:ghp_secretsecret@api.github.com/repos/a/b?per_page=1&access_token=x")).toBe(
      "https://api.github.com/repos/a/b?per_page=1&access_token=REDACTED",
    );
    expect(safeUrl("https://blob.core.windows.net/logs/1.zip?sv=2020&sig=abc&se=2026")).toBe(
      "https://blob.core.windows.net/logs/1.zip?sv=2020&sig=REDACTED&se=2026",
    );
    expect(safeUrl("not a url")).toBeUndefined();
  });
});
