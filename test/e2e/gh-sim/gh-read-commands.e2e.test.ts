/**
 * Every read command of the gh 2.23 traffic index (test/fixtures/gh-2.23-traffic/README.md),
 * run with the real gh against the default world: each prints what the scenario holds and exits
 * with gh's own code. All commands run concurrently in beforeAll; each `it` checks one result.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { type Checkout, checkout, type GhResult, gh, ghEnv, plain, pooled, scratch } from "./support.js";

interface Case {
  readonly name: string;
  readonly args: readonly string[];
  /** Where gh runs: GH_REPO, a checkout on feature/frobnicator, one with two remotes, or a pty. */
  readonly where?: "repo" | "checkout" | "two-remotes" | "tty";
  readonly code: number;
  readonly check: (out: string, r: GhResult) => void;
}

const json = <T>(text: string) => JSON.parse(text) as T;
const ALL_PR_FIELDS =
  "number,title,state,body,author,headRefName,baseRefName,url,isDraft,mergeable,mergeStateStatus,reviewDecision,statusCheckRollup,labels,assignees,reviews,latestReviews,reviewRequests,comments,files,commits,additions,deletions,changedFiles,createdAt,updatedAt,mergedAt,closedAt,headRefOid,milestone,projectCards";

const CASES: readonly Case[] = [
  {
    name: "pr view 1",
    args: ["pr", "view", "1"],
    code: 0,
    check: (out) => {
      expect(out).toContain(
        "title:\tAdd widget frobnicator\nstate:\tOPEN\nauthor:\toctocat\nlabels:\tenhancement\n",
      );
      expect(out).toContain("reviewers:\thubot (Changes requested), monalisa (Requested)");
      expect(out).toContain("additions:\t168\ndeletions:\t1\n--\nAdds the frobnicator");
    },
  },
  {
    name: "pr view 1 --comments",
    args: ["pr", "view", "1", "--comments"],
    code: 0,
    check: (out) => {
      expect(out).toContain("Thanks! CI shows a failing test in `frobnicates widgets`.");
      expect(out).toContain("status:\tchanges requested\n--\nPlease handle the empty widget list.");
      expect(out).toContain("Looking into it.");
    },
  },
  {
    name: "pr view --json basic fields",
    args: ["pr", "view", "1", "--json", "number,title,state,url,headRefName,baseRefName,isDraft,author"],
    code: 0,
    check: (out) =>
      expect(json(out)).toMatchObject({
        number: 1,
        state: "OPEN",
        headRefName: "feature/frobnicator",
        baseRefName: "main",
        isDraft: false,
        url: "http://github.localhost/acme/widgets/pull/1",
        author: { login: "octocat", name: "The Octocat" },
      }),
  },
  {
    name: "pr view --json statusCheckRollup",
    args: ["pr", "view", "1", "--json", "statusCheckRollup"],
    code: 0,
    check: (out) => {
      const checks = json<{
        statusCheckRollup: { name?: string; context?: string; conclusion?: string; state?: string }[];
      }>(out);
      expect(
        checks.statusCheckRollup.map((c) => `${c.name ?? c.context}:${c.conclusion ?? c.state}`),
      ).toEqual(["build:SUCCESS", "test:FAILURE", "lint:SUCCESS", "ci/coverage:SUCCESS"]);
    },
  },
  {
    name: "pr view --json reviews and merge state",
    args: ["pr", "view", "1", "--json", "reviews,comments,reviewDecision,mergeable,mergeStateStatus"],
    code: 0,
    check: (out) =>
      expect(json(out)).toMatchObject({
        reviewDecision: "CHANGES_REQUESTED",
        mergeable: "MERGEABLE",
        mergeStateStatus: "BLOCKED",
        reviews: [{ state: "CHANGES_REQUESTED", author: { login: "hubot" } }],
        comments: [{ author: { login: "hubot" } }, { author: { login: "octocat" } }],
      }),
  },
  {
    name: "pr view --json commits,files",
    args: ["pr", "view", "1", "--json", "commits,files"],
    code: 0,
    check: (out) => {
      const pr = json<{ commits: { messageHeadline: string }[]; files: { path: string }[] }>(out);
      expect(pr.commits.map((c) => c.messageHeadline)).toEqual([
        "Add frobnicator skeleton",
        "Wire frobnicator into the pipeline",
      ]);
      expect(pr.files.map((f) => f.path)).toEqual([
        "src/frobnicator.ts",
        "src/index.ts",
        "test/frobnicator.test.ts",
      ]);
    },
  },
  {
    name: "pr view --json every field",
    args: ["pr", "view", "2", "--json", ALL_PR_FIELDS],
    code: 0,
    check: (out) =>
      expect(json(out)).toMatchObject({
        number: 2,
        reviewDecision: "APPROVED",
        mergeStateStatus: "CLEAN",
        changedFiles: 1,
      }),
  },
  {
    name: "pr view 1 in a checkout",
    args: ["pr", "view", "1"],
    where: "checkout",
    code: 0,
    check: (out) => expect(out).toContain("number:\t1\n"),
  },
  {
    name: "pr view (current branch)",
    args: ["pr", "view"],
    where: "checkout",
    code: 0,
    check: (out) => expect(out).toContain("title:\tAdd widget frobnicator"),
  },
  {
    name: "pr view with two remotes (upstream wins)",
    args: ["pr", "view", "1", "--json", "number,title"],
    where: "two-remotes",
    code: 0,
    check: (out) => expect(json(out)).toEqual({ number: 1, title: "Add widget frobnicator" }),
  },
  {
    name: "pr checks 1 (failing → 1)",
    args: ["pr", "checks", "1"],
    code: 1,
    check: (out) => {
      expect(out).toContain(
        "test\tfail\t1m0s\thttp://github.localhost/acme/widgets/actions/runs/1001/job/2002",
      );
      expect(out).toContain("build\tpass\t");
      expect(out).toContain("ci/coverage\tpass\t");
    },
  },
  {
    name: "pr checks 2 (passing → 0)",
    args: ["pr", "checks", "2"],
    code: 0,
    check: (out) => expect(out.split("\n").filter(Boolean)).toHaveLength(3),
  },
  {
    name: "pr checks 3 (pending → 1 in gh 2.23)",
    args: ["pr", "checks", "3"],
    code: 1,
    check: (out) =>
      expect(out).toContain("deploy-preview\tpending\t0\thttp://github.localhost/acme/widgets/runs/2008"),
  },
  {
    name: "pr checks (current branch)",
    args: ["pr", "checks"],
    where: "checkout",
    code: 1,
    check: (out) => expect(out).toContain("test\tfail"),
  },
  {
    name: "pr list",
    args: ["pr", "list"],
    code: 0,
    check: (out) =>
      expect(out.split("\n").map((l) => l.split("\t").slice(0, 4).join("|"))).toEqual([
        "3|Dashboard: first draft|feature/dashboard|DRAFT",
        "2|Fix typo in README|docs/readme-typo|OPEN",
        "1|Add widget frobnicator|feature/frobnicator|OPEN",
        "",
      ]),
  },
  {
    name: "pr list --json",
    args: ["pr", "list", "--json", "number,title,headRefName,state,url"],
    code: 0,
    check: (out) => expect(json<{ number: number }[]>(out).map((p) => p.number)).toEqual([3, 2, 1]),
  },
  {
    name: "pr list --json statusCheckRollup",
    args: ["pr", "list", "--json", "number,title,headRefName,statusCheckRollup"],
    code: 0,
    check: (out) => {
      const prs = json<{ number: number; statusCheckRollup: unknown[] }[]>(out);
      expect(prs.map((p) => [p.number, p.statusCheckRollup.length])).toEqual([
        [3, 3],
        [2, 3],
        [1, 4],
      ]);
    },
  },
  {
    name: "pr list --state all --limit 50",
    args: ["pr", "list", "--state", "all", "--limit", "50"],
    code: 0,
    check: (out) => expect(out.trim().split("\n")).toHaveLength(3),
  },
  {
    name: "pr list --limit 100",
    args: ["pr", "list", "--limit", "100"],
    code: 0,
    check: (out) => expect(out.trim().split("\n")).toHaveLength(3),
  },
  {
    name: "pr list --search",
    args: ["pr", "list", "--search", "is:open author:@me", "--json", "number,title"],
    code: 0,
    check: (out) => expect(json(out)).toEqual([{ number: 1, title: "Add widget frobnicator" }]),
  },
  {
    name: "pr list --label bug",
    args: ["pr", "list", "--label", "bug", "--json", "number"],
    code: 0,
    check: (out) => expect(json(out)).toEqual([]),
  },
  {
    name: "pr list --label documentation",
    args: ["pr", "list", "--label", "documentation", "--json", "number"],
    code: 0,
    check: (out) => expect(json(out)).toEqual([{ number: 2 }]),
  },
  {
    name: "pr status",
    args: ["pr", "status"],
    where: "checkout",
    code: 0,
    check: (out) => {
      expect(out).toContain(
        "Current branch\n  #1  Add widget frobnicator [feature/frobnicator]\n  × 1/4 checks failing + Changes requested",
      );
      expect(out).toContain("Created by you\n  #1  Add widget frobnicator");
    },
  },
  {
    name: "issue view 10",
    args: ["issue", "view", "10"],
    code: 0,
    check: (out) => {
      expect(out).toContain(
        "title:\tWidgets render upside down on Safari\nstate:\tOPEN\nauthor:\tmonalisa\nlabels:\tbug\ncomments:\t2\n",
      );
      expect(out).toContain("Every widget is upside down");
    },
  },
  {
    name: "issue view 10 --comments",
    args: ["issue", "view", "10", "--comments"],
    code: 0,
    check: (out) => {
      expect(out).toContain("I can reproduce this on Safari 17.");
      expect(out).toContain("Working on a fix in #1.");
    },
  },
  {
    name: "issue view --json",
    args: ["issue", "view", "10", "--json", "number,title,body,state,labels,comments"],
    code: 0,
    check: (out) => {
      const issue = json<{ number: number; labels: { name: string }[]; comments: unknown[] }>(out);
      expect([issue.number, issue.labels.map((l) => l.name), issue.comments.length]).toEqual([
        10,
        ["bug"],
        2,
      ]);
    },
  },
  {
    name: "issue list",
    args: ["issue", "list"],
    code: 0,
    check: (out) =>
      expect(out.split("\n").map((l) => l.split("\t").slice(0, 4).join("|"))).toEqual([
        "12|OPEN|Support dark mode|enhancement",
        "11|OPEN|Document the frobnicator API|documentation, good first issue",
        "10|OPEN|Widgets render upside down on Safari|bug",
        "",
      ]),
  },
  {
    name: "issue list in a checkout",
    args: ["issue", "list"],
    where: "checkout",
    code: 0,
    check: (out) => expect(out).toContain("10\tOPEN\tWidgets render upside down"),
  },
  {
    name: "issue list --json labels",
    args: ["issue", "list", "--json", "number,title,labels"],
    code: 0,
    check: (out) => expect(json<{ number: number }[]>(out).map((i) => i.number)).toEqual([12, 11, 10]),
  },
  {
    name: "issue list --json body and comments",
    args: ["issue", "list", "--json", "number,title,body,comments,labels,assignees"],
    code: 0,
    check: (out) => {
      const issues = json<{ number: number; comments: unknown[]; assignees: { login: string }[] }[]>(out);
      expect(issues.map((i) => [i.number, i.comments.length, i.assignees.map((a) => a.login)])).toEqual([
        [12, 1, []],
        [11, 1, []],
        [10, 2, ["octocat"]],
      ]);
    },
  },
  {
    name: "run list",
    args: ["run", "list"],
    code: 0,
    check: (out) => {
      const rows = out
        .trim()
        .split("\n")
        .map((l) => l.split("\t"));
      expect(rows.map((r) => [r[0], r[1], r[2], r[3], r[4], r[6]])).toEqual([
        ["completed", "success", "Dashboard: first draft", "CI", "feature/dashboard", "1003"],
        ["completed", "success", "Fix typo in README", "CI", "docs/readme-typo", "1002"],
        ["completed", "failure", "Wire frobnicator into the pipeline", "CI", "feature/frobnicator", "1001"],
      ]);
    },
  },
  {
    name: "run list in a checkout",
    args: ["run", "list"],
    where: "checkout",
    code: 0,
    check: (out) => expect(out).toContain("\t1001\t"),
  },
  {
    name: "run list --branch --json",
    args: [
      "run",
      "list",
      "--branch",
      "feature/frobnicator",
      "--json",
      "databaseId,status,conclusion,headBranch,workflowName",
    ],
    code: 0,
    check: (out) =>
      expect(json(out)).toEqual([
        {
          databaseId: 1001,
          status: "completed",
          conclusion: "failure",
          headBranch: "feature/frobnicator",
          workflowName: "CI",
        },
      ]),
  },
  {
    name: "run view 1001",
    args: ["run", "view", "1001"],
    code: 0,
    check: (out) => {
      expect(out).toContain("X feature/frobnicator CI #1 · 1001");
      expect(out).toContain("✓ build in 30s (ID 2001)\nX test in 1m0s (ID 2002)");
      expect(out).toContain("X AssertionError: expected 41 to be 42\ntest: test/frobnicator.test.ts#12");
      expect(out).toContain("ARTIFACTS\ncoverage-report");
    },
  },
  {
    name: "run view --job 2002",
    args: ["run", "view", "--job", "2002"],
    code: 0,
    check: (out) =>
      expect(out).toContain(
        "X test in 1m0s (ID 2002)\n  ✓ Set up job\n  ✓ Checkout\n  ✓ Install dependencies\n  X Run tests",
      ),
  },
  {
    name: "run view 1001 --log",
    args: ["run", "view", "1001", "--log"],
    code: 0,
    check: (out) => {
      expect(out).toContain(
        "build\tSet up job\t2026-01-05T09:01:00.0000000Z Current runner version: '2.321.0'",
      );
      expect(out).toContain("lint\tLint\t2026-01-05T09:01:04.0000000Z Checked 42 files, no problems");
      expect(out).toContain(
        "test\tRun tests\t2026-01-05T09:01:07.3000000Z AssertionError: expected 41 to be 42",
      );
    },
  },
  {
    name: "run view 1001 --log-failed",
    args: ["run", "view", "1001", "--log-failed"],
    code: 0,
    check: (out) => {
      const lines = out.trim().split("\n");
      expect(lines).toHaveLength(7);
      expect(lines.every((l) => l.startsWith("test\tRun tests\t"))).toBe(true);
    },
  },
  {
    name: "run watch 1001 (already complete)",
    args: ["run", "watch", "1001"],
    code: 0,
    check: (out, r) => expect(out + r.stderr).toContain("Run CI (1001) has already completed with 'failure'"),
  },
  {
    name: "pr diff 1",
    args: ["pr", "diff", "1"],
    code: 0,
    check: (out) =>
      expect(out).toContain("diff --git a/src/frobnicator.ts b/src/frobnicator.ts\nnew file mode 100644"),
  },
  {
    name: "api repos/.../pulls/1",
    args: ["api", "repos/acme/widgets/pulls/1"],
    code: 0,
    check: (out) =>
      expect(json(out)).toMatchObject({
        number: 1,
        mergeable_state: "blocked",
        head: { ref: "feature/frobnicator" },
      }),
  },
  {
    name: "api --paginate (follows Link headers)",
    args: ["api", "--paginate", "repos/acme/widgets/pulls?per_page=1"],
    code: 0,
    check: (out) => expect([...out.matchAll(/"number":(\d+)/g)].map((m) => m[1])).toEqual(["3", "2", "1"]),
  },
  {
    name: "api rate_limit",
    args: ["api", "rate_limit"],
    code: 0,
    check: (out) =>
      expect(json(out)).toMatchObject({ resources: { core: { limit: 5000 }, graphql: { limit: 5000 } } }),
  },
  {
    name: "api graphql",
    args: ["api", "graphql", "-f", "query=query { viewer { login } }"],
    code: 0,
    check: (out) => expect(json(out)).toEqual({ data: { viewer: { login: "octocat" } } }),
  },
  {
    name: "api graphql with variables",
    args: [
      "api",
      "graphql",
      "-F",
      "owner=acme",
      "-F",
      "name=widgets",
      "-f",
      "query=query($owner:String!,$name:String!){repository(owner:$owner,name:$name){pullRequests(first:10,states:OPEN){nodes{number title}}}}",
    ],
    code: 0,
    check: (out) =>
      expect(
        json<{ data: { repository: { pullRequests: { nodes: { number: number }[] } } } }>(
          out,
        ).data.repository.pullRequests.nodes.map((n) => n.number),
      ).toEqual([1, 2, 3]),
  },
  {
    name: "pr view 1 (tty)",
    args: ["pr", "view", "1"],
    where: "tty",
    code: 0,
    check: (out) => expect(plain(out)).toContain("Add widget frobnicator #1"),
  },
  {
    name: "pr list (tty)",
    args: ["pr", "list"],
    where: "tty",
    code: 0,
    check: (out) => expect(plain(out)).toContain("Showing 3 of 3 open pull requests in acme/widgets"),
  },
  {
    name: "pr checks 1 (tty)",
    args: ["pr", "checks", "1"],
    where: "tty",
    code: 1,
    check: (out) => expect(plain(out)).toContain("Some checks were not successful"),
  },
  {
    name: "issue list (tty)",
    args: ["issue", "list"],
    where: "tty",
    code: 0,
    check: (out) => expect(plain(out)).toContain("Showing 3 of 3 open issues in acme/widgets"),
  },
  {
    name: "issue view 10 (tty)",
    args: ["issue", "view", "10"],
    where: "tty",
    code: 0,
    check: (out) => expect(plain(out)).toContain("Widgets render upside down on Safari #10"),
  },
  {
    name: "run list (tty)",
    args: ["run", "list"],
    where: "tty",
    code: 0,
    check: (out) => expect(plain(out)).toMatch(/X +Wire frobni.*CI.*1001 +1m30s/),
  },
];

let sim: RunningSimulator;
let work: { dir: string; cleanup: () => void };
const results = new Map<string, GhResult>();

beforeAll(async () => {
  sim = await startSimulator();
  work = scratch("aob-gh-read-");
  const onBranch: Checkout = checkout(sim, work.dir, "feature/frobnicator");
  const twoRemotes: Checkout = checkout(sim, work.dir, "feature/frobnicator", {
    origin: "octocat/widgets",
    upstream: "acme/widgets",
  });
  await pooled(
    CASES.map((c) => async () => {
      const where = c.where ?? "repo";
      const place = where === "checkout" ? onBranch : where === "two-remotes" ? twoRemotes : undefined;
      const result = await gh(c.args, {
        env: place?.env ?? ghEnv(sim, work.dir),
        ...(place ? { cwd: place.dir } : {}),
        tty: where === "tty",
      });
      results.set(c.name, result);
    }),
  );
}, 120_000);

afterAll(async () => {
  await sim?.close();
  work?.cleanup();
});

describe("real gh 2.23 against the default world", () => {
  describe("when running the captured read commands", () => {
    it.each(CASES)("gh $name prints the scenario and exits $code", (c) => {
      const r = results.get(c.name);
      expect(r, "command did not run").toBeDefined();
      const result = r as GhResult;
      expect({ code: result.code, stderr: result.code === c.code ? "" : result.stderr }).toEqual({
        code: c.code,
        stderr: "",
      });
      c.check(result.stdout, result);
    });

    it("gives the same output twice (the default world stands still)", async () => {
      const again = await gh(["pr", "view", "1"], { env: ghEnv(sim, work.dir) });
      expect(again.stdout).toBe(results.get("pr view 1")?.stdout);
    });

    it("was charged only what the captures document (no REST for pr/issue commands)", () => {
      const stats = sim.stats();
      expect(stats.requests.rateLimited).toBe(0);
      expect(stats.requests.byOperation.PullRequestByNumber).toBeGreaterThanOrEqual(12);
      expect(stats.requests.byOperation["GET /repos/{owner}/{repo}/actions/runs/{run_id}/logs"]).toBe(2);
    });
  });
});
