import { describe, expect, it } from "vitest";
import {
  isSessionId,
  localSessionId,
  normalizeRepo,
  repoFromRemotes,
  worktreeSessionId,
} from "../../../agents-shim/core/session-identity.js";

describe("worktreeSessionId", () => {
  it("is stable for a path and valid as a broker session id", () => {
    const id = worktreeSessionId("/home/me/.worktrees/proj/issue-12");
    expect(id).toBe(worktreeSessionId("/home/me/.worktrees/proj/issue-12/"));
    expect(id).toMatch(/^wt-issue-12-[0-9a-f]{10}$/);
    expect(isSessionId(id)).toBe(true);
  });
  it("keeps two worktrees with the same directory name apart", () => {
    expect(worktreeSessionId("/a/widgets")).not.toBe(worktreeSessionId("/b/widgets"));
  });
  it.each([
    { name: "spaces and unicode", path: "/tmp/my wörk tree" },
    { name: "a leading dot", path: "/tmp/.hidden" },
    { name: "the root", path: "/" },
    { name: "a very long name", path: `/tmp/${"x".repeat(300)}` },
  ])("makes a valid id from $name", ({ path }) => {
    expect(isSessionId(worktreeSessionId(path))).toBe(true);
  });
});

describe("localSessionId", () => {
  it("names the user", () => {
    expect(localSessionId("alice")).toBe("local-alice");
    expect(isSessionId(localSessionId("dom\\user name"))).toBe(true);
  });
});

describe("normalizeRepo", () => {
  it.each([
    { input: "acme/widgets", repo: "acme/widgets" },
    { input: "github.com/acme/widgets", repo: "acme/widgets" },
    { input: "github.localhost/acme/widgets", repo: "acme/widgets" },
    { input: "https://github.com/acme/widgets.git", repo: "acme/widgets" },
    { input: "https://github.com/acme/widgets/", repo: "acme/widgets" },
    { input: "git@github.com:acme/widgets.git", repo: "acme/widgets" },
    { input: "ssh://git@github.com/acme/widgets", repo: "acme/widgets" },
    { input: "https://token@github.com/acme/widgets", repo: "acme/widgets" },
    { input: "ghe.corp.example/acme/widgets", repo: undefined },
    { input: "https://github.com/acme/widgets/pull/5", repo: undefined },
    { input: "widgets", repo: undefined },
    { input: "acme/..", repo: undefined },
    { input: "", repo: undefined },
  ])("$input → $repo", ({ input, repo }) => {
    expect(normalizeRepo(input)).toBe(repo);
  });
});

describe("repoFromRemotes", () => {
  it("prefers origin", () => {
    const out = [
      "fork\thttps://github.com/me/widgets.git (fetch)",
      "origin\thttps://github.com/acme/widgets.git (fetch)",
      "origin\thttps://github.com/acme/widgets.git (push)",
    ].join("\n");
    expect(repoFromRemotes(out)).toBe("acme/widgets");
  });
  it("falls back to upstream, then to any github remote, and ignores other hosts", () => {
    expect(
      repoFromRemotes("gl\thttps://gitlab.com/a/b.git (fetch)\nupstream\tgit@github.com:up/w.git (fetch)"),
    ).toBe("up/w");
    expect(repoFromRemotes("mine\thttps://github.localhost/me/w.git (fetch)")).toBe("me/w");
    expect(repoFromRemotes("gl\thttps://gitlab.com/a/b.git (fetch)")).toBeUndefined();
  });
});
