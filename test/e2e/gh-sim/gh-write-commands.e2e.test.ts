/**
 * The captured write commands with the real gh: each gets its own simulator (they run
 * concurrently), and the simulator's world is the witness of what gh changed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { checkout, type GhResult, gh, ghEnv, pooled, scratch } from "./support.js";

interface Case {
  readonly name: string;
  readonly args: readonly string[];
  /** Run inside a checkout on this branch instead of with GH_REPO. */
  readonly branch?: string;
  readonly prepare?: (sim: RunningSimulator) => void;
  readonly check: (sim: RunningSimulator, r: GhResult) => void;
}

const repoOf = (sim: RunningSimulator) => {
  const repo = sim.world.repo("acme/widgets");
  if (!repo) throw new Error("no repo");
  return repo;
};
const ops = (sim: RunningSimulator) => sim.stats().requests.byOperation;

const CASES: readonly Case[] = [
  {
    name: "pr create --head (checkout)",
    args: ["pr", "create", "--title", "T", "--body", "B", "--head", "feature/new-thing"],
    branch: "feature/new-thing",
    prepare: (sim) => {
      sim.inject({ type: "push", branch: "feature/new-thing", message: "Add the new thing" });
    },
    check: (sim, r) => {
      expect(r.stdout.trim()).toBe("http://github.localhost/acme/widgets/pull/13");
      expect(repoOf(sim).pulls.get(13)).toMatchObject({
        title: "T",
        body: "B",
        headRef: "feature/new-thing",
        author: "octocat",
      });
      expect(ops(sim)).toMatchObject({ RepositoryInfo: 1, PullRequestForBranch: 1, PullRequestCreate: 1 });
    },
  },
  {
    name: "pr merge --squash (fresh gh cache: introspection first)",
    args: ["pr", "merge", "2", "--squash"],
    check: (sim) => {
      expect(repoOf(sim).pulls.get(2)).toMatchObject({ merged: true, state: "closed" });
      expect(repoOf(sim).branches.has("docs/readme-typo")).toBe(true);
      expect(ops(sim)).toMatchObject({ PullRequest_fields: 1, PullRequestByNumber: 1, PullRequestMerge: 1 });
    },
  },
  {
    name: "pr merge --squash --delete-branch",
    args: ["pr", "merge", "2", "--squash", "--delete-branch"],
    check: (sim) => {
      expect(repoOf(sim).pulls.get(2)?.merged).toBe(true);
      expect(repoOf(sim).branches.has("docs/readme-typo")).toBe(false);
      expect(ops(sim)["DELETE /repos/{owner}/{repo}/git/refs/{ref+}"]).toBe(1);
    },
  },
  {
    name: "pr merge --merge --delete-branch",
    args: ["pr", "merge", "2", "--merge", "--delete-branch"],
    check: (sim) => {
      const repo = repoOf(sim);
      const pr = repo.pulls.get(2);
      expect(repo.commits.get(pr?.mergeCommitSha ?? "")?.message).toBe(
        "Merge pull request #2 from acme/docs/readme-typo",
      );
      expect(repo.branches.has("docs/readme-typo")).toBe(false);
    },
  },
  {
    name: "pr merge --squash --delete-branch (checkout on the PR's branch)",
    args: ["pr", "merge", "2", "--squash", "--delete-branch"],
    branch: "docs/readme-typo",
    check: (sim) => {
      expect(repoOf(sim).pulls.get(2)?.merged).toBe(true);
      expect(repoOf(sim).branches.has("docs/readme-typo")).toBe(false);
    },
  },
  {
    name: "pr merge refused while blocked",
    args: ["pr", "merge", "1", "--squash"],
    check: (sim, r) => {
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        "Pull request #1 is not mergeable: the base branch policy prohibits the merge.",
      );
      expect(repoOf(sim).pulls.get(1)?.merged).toBe(false);
    },
  },
  {
    name: "pr comment",
    args: ["pr", "comment", "2", "--body", "hi"],
    check: (sim, r) => {
      const comment = repoOf(sim).pulls.get(2)?.comments.at(-1);
      expect(comment).toMatchObject({ author: "octocat", body: "hi" });
      expect(r.stdout.trim()).toBe(`http://github.localhost/acme/widgets/pull/2#issuecomment-${comment?.id}`);
    },
  },
  {
    name: "pr review --approve",
    args: ["pr", "review", "3", "--approve"],
    check: (sim) =>
      expect(repoOf(sim).pulls.get(3)?.reviews.at(-1)).toMatchObject({
        author: "octocat",
        state: "APPROVED",
      }),
  },
  {
    name: "pr review --request-changes",
    args: ["pr", "review", "2", "--request-changes", "--body", "Please add a test"],
    check: (sim) =>
      expect(repoOf(sim).pulls.get(2)?.reviews.at(-1)).toMatchObject({
        state: "CHANGES_REQUESTED",
        body: "Please add a test",
      }),
  },
  {
    name: "pr ready (already ready)",
    args: ["pr", "ready", "1"],
    check: (sim, r) => {
      expect(r.stderr).toContain('Pull request #1 is already "ready for review"');
      expect(sim.world.version).toBe(0);
    },
  },
  {
    name: "pr ready (draft)",
    args: ["pr", "ready", "3"],
    check: (sim) => expect(repoOf(sim).pulls.get(3)?.draft).toBe(false),
  },
  {
    name: "pr edit --add-label",
    args: ["pr", "edit", "1", "--add-label", "bug"],
    check: (sim, r) => {
      expect(r.stdout.trim()).toBe("http://github.localhost/acme/widgets/pull/1");
      expect(repoOf(sim).pulls.get(1)?.labels).toEqual(["enhancement", "bug"]);
      expect(ops(sim)).toMatchObject({ PullRequestProjectItems: 1, RepositoryLabelList: 1, LabelAdd: 1 });
    },
  },
  {
    name: "issue comment",
    args: ["issue", "comment", "10", "--body", "hi"],
    check: (sim) =>
      expect(repoOf(sim).issues.get(10)?.comments.at(-1)).toMatchObject({ author: "octocat", body: "hi" }),
  },
  {
    name: "issue create",
    args: ["issue", "create", "--title", "T", "--body", "B"],
    check: (sim, r) => {
      expect(r.stdout.trim()).toBe("http://github.localhost/acme/widgets/issues/13");
      expect(repoOf(sim).issues.get(13)).toMatchObject({
        title: "T",
        body: "B",
        author: "octocat",
        state: "open",
      });
    },
  },
];

const runs = new Map<string, { sim: RunningSimulator; result: GhResult }>();
let work: { dir: string; cleanup: () => void };

beforeAll(async () => {
  work = scratch("aob-gh-write-");
  await pooled(
    CASES.map((c) => async () => {
      const sim = await startSimulator();
      c.prepare?.(sim);
      const place = c.branch ? checkout(sim, work.dir, c.branch) : undefined;
      const result = await gh(c.args, {
        env: place?.env ?? ghEnv(sim, work.dir),
        ...(place ? { cwd: place.dir } : {}),
      });
      runs.set(c.name, { sim, result });
    }),
  );
}, 120_000);

afterAll(async () => {
  await Promise.all([...runs.values()].map((r) => r.sim.close()));
  work?.cleanup();
});

describe("real gh 2.23 writing to the simulator", () => {
  it.each(CASES)("gh $name changes the world as GitHub would", (c) => {
    const run = runs.get(c.name);
    expect(run, "command did not run").toBeDefined();
    const { sim, result } = run as { sim: RunningSimulator; result: GhResult };
    if (c.name !== "pr merge refused while blocked")
      expect({ code: result.code, stderr: result.stderr.slice(0, 300) }).toMatchObject({ code: 0 });
    c.check(sim, result);
  });
});
