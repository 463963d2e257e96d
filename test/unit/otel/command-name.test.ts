import { describe, expect, it } from "vitest";
import { invocationSpanName } from "../../../otel/core/command-name.js";
import { commandLabel, ghApiEndpoint, ghApiMethod, ghOperation } from "../../../otel/index.js";

describe("ghOperation", () => {
  it.each([
    { name: "pr view", args: ["pr", "view", "5"], op: "gh.pr.view" },
    { name: "pr checks with flags", args: ["pr", "checks", "1", "--watch"], op: "gh.pr.checks" },
    { name: "flags before the subcommand", args: ["pr", "--repo", "acme/widgets", "list"], op: "gh.pr.list" },
    { name: "api graphql", args: ["api", "graphql", "-f", "query=x"], op: "gh.api.graphql" },
    { name: "api with method first", args: ["api", "-X", "POST", "graphql"], op: "gh.api.graphql" },
    { name: "api REST path", args: ["api", "repos/acme/widgets/pulls?per_page=1"], op: "gh.api.repos" },
    { name: "api REST path with a leading slash", args: ["api", "/rate_limit"], op: "gh.api.rate_limit" },
    { name: "api with headers first", args: ["api", "-H", "Accept: x", "user"], op: "gh.api.user" },
    { name: "only a subcommand", args: ["status"], op: "gh.status" },
    { name: "nothing", args: [], op: "gh" },
  ])("$name → $op", ({ args, op }) => {
    expect(ghOperation(args)).toBe(op);
  });
});

describe("ghApiEndpoint and ghApiMethod", () => {
  it("finds the endpoint and gh's method (-X, else POST with fields, else GET)", () => {
    expect(ghApiEndpoint(["api", "-X", "PATCH", "repos/o/r/issues/1", "-f", "state=closed"])).toBe(
      "repos/o/r/issues/1",
    );
    expect(ghApiMethod(["api", "-X", "patch", "repos/o/r"])).toBe("PATCH");
    expect(ghApiMethod(["api", "--method=DELETE", "repos/o/r"])).toBe("DELETE");
    expect(ghApiMethod(["api", "graphql", "-f", "query=x"])).toBe("POST");
    expect(ghApiMethod(["api", "user"])).toBe("GET");
    expect(ghApiMethod(["pr", "view"])).toBeUndefined();
    expect(ghApiEndpoint(["pr", "view"])).toBeUndefined();
  });
});

describe("commandLabel", () => {
  it("keeps vocabulary commands and folds anything else into other", () => {
    expect(commandLabel("gh.pr.checks")).toBe("gh.pr.checks");
    expect(commandLabel("ao.lifecycle")).toBe("ao.lifecycle");
    expect(commandLabel("gh.api.zzz")).toBe("other");
    expect(commandLabel(undefined)).toBe("other");
    expect(invocationSpanName("gh.pr.checks")).toBe("gh pr checks");
    expect(invocationSpanName("gh.extension.exec")).toBe("gh");
  });
});
