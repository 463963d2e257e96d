/**
 * The real gh against a world that moves (CI finishing while `gh pr checks --watch` and `gh run
 * watch` poll) and against one too large for a single page (the pg_* captures: more than 100
 * PRs, issues, comments, reviews and checks, so gh follows cursors).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEFAULT_SCENARIO,
  type RunningSimulator,
  type Scenario,
  startSimulator,
} from "../../../github-sim/index.js";
import { gh, ghEnv, scratch } from "./support.js";

let work: { dir: string; cleanup: () => void };
const sims: RunningSimulator[] = [];

async function sim(options: Parameters<typeof startSimulator>[0]): Promise<RunningSimulator> {
  const s = await startSimulator(options);
  sims.push(s);
  return s;
}

beforeAll(() => {
  work = scratch("aob-gh-motion-");
});
afterAll(async () => {
  await Promise.all(sims.map((s) => s.close()));
  work?.cleanup();
});

/** The default world plus 250 issues and PR #500 with 120 comments, 105 reviews and 105 checks. */
function bigScenario(): Scenario {
  const base = DEFAULT_SCENARIO.repos[0];
  if (!base) throw new Error("no repo");
  const issues = Array.from({ length: 250 }, (_, i) => ({
    number: 1000 + i,
    title: `Issue ${1000 + i}`,
    author: "hubot",
  }));
  const big = {
    number: 500,
    title: "Big PR",
    head: "feature/big",
    author: "hubot",
    comments: Array.from({ length: 120 }, (_, i) => ({ author: "monalisa", body: `comment ${i + 1}` })),
    reviews: Array.from({ length: 105 }, (_, i) => ({
      author: i % 2 ? "monalisa" : "octocat",
      state: "COMMENTED" as const,
      body: `review ${i + 1}`,
    })),
    checks: Array.from({ length: 105 }, (_, i) => ({
      name: `check-${String(i + 1).padStart(3, "0")}`,
      conclusion: "success" as const,
    })),
  };
  return {
    ...DEFAULT_SCENARIO,
    repos: [{ ...base, issues: [...(base.issues ?? []), ...issues], pulls: [...(base.pulls ?? []), big] }],
  };
}

/** Resolves once the simulator has served `op` at least `times` times (gh has started polling). */
async function servedAtLeast(s: RunningSimulator, op: string, times: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if ((s.stats().requests.byOperation[op] ?? 0) >= times) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${op} was not served ${times} times`);
}

describe("real gh 2.23 against a moving world", () => {
  it("gh pr checks --watch follows CI to success and exits 0", async () => {
    const s = await sim({});
    s.inject({
      type: "open_pr",
      head: "feature/watched",
      title: "Watched",
      author: "hubot",
      ci: {
        jobs: [
          { name: "build", durationS: 60 },
          { name: "test", startAfterS: 30, durationS: 60 },
        ],
      },
    });
    const env = ghEnv(s, work.dir);
    const pending = await gh(["pr", "checks", "13"], { env });
    expect(pending.code).toBe(1);
    expect(pending.stdout).toMatch(/build\tpending[\s\S]*test\tpending|test\tpending[\s\S]*build\tpending/);
    const watching = gh(["pr", "checks", "13", "--watch", "--interval", "1"], { env, timeoutMs: 20_000 });
    await servedAtLeast(s, "PullRequestStatusChecks", 3);
    await s.advance(45_000);
    await servedAtLeast(s, "PullRequestStatusChecks", 4);
    await s.advance(60_000);
    const watched = await watching;
    expect(watched.code).toBe(0);
    expect(watched.stdout).toMatch(/build\tpass[\s\S]*test\tpass/);
    expect(s.stats().requests.byOperation.PullRequestStatusChecks).toBeGreaterThanOrEqual(5);
  });

  it("gh run watch --exit-status follows a run to failure and exits 1", async () => {
    const s = await sim({});
    const started = s.inject({
      type: "ci",
      pr: 2,
      ci: {
        runId: 1100,
        jobs: [
          { name: "build", durationS: 60 },
          { name: "e2e", startAfterS: 30, durationS: 60, conclusion: "failure" },
        ],
      },
    });
    expect(started.id).toBe(1100);
    const watching = gh(["run", "watch", "1100", "--interval", "1", "--exit-status"], {
      env: ghEnv(s, work.dir),
      timeoutMs: 20_000,
    });
    await servedAtLeast(s, "GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs", 1);
    await s.advance(70_000);
    await servedAtLeast(s, "GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs", 2);
    await s.advance(30_000);
    const result = await watching;
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("* e2e (ID 2010)");
    expect(result.stdout).toMatch(
      /X docs\/readme-typo CI #2 · 1100[\s\S]*✓ build in 1m0s \(ID 2009\)[\s\S]*X e2e in 1m0s \(ID 2010\)\n {2}X Run/,
    );
    expect(s.world.repo("acme/widgets")?.runs.get(1100)).toMatchObject({
      status: "completed",
      conclusion: "failure",
    });
  });
});

describe("real gh 2.23 paging through more than 100 items", () => {
  let big: RunningSimulator;
  beforeAll(async () => {
    big = await sim({ scenario: bigScenario(), prs: 250 });
  });

  it("gh pr list --limit 150 takes two pages", async () => {
    const result = await gh(["pr", "list", "--limit", "150"], { env: ghEnv(big, work.dir) });
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split("\n")).toHaveLength(150);
    expect(big.stats().requests.byOperation.PullRequestList).toBe(2);
  });

  it("gh issue list --limit 150 takes two pages", async () => {
    const result = await gh(["issue", "list", "--limit", "150", "--json", "number"], {
      env: ghEnv(big, work.dir),
    });
    const numbers = (JSON.parse(result.stdout) as { number: number }[]).map((i) => i.number);
    expect(numbers).toHaveLength(150);
    expect(new Set(numbers).size).toBe(150);
    expect(big.stats().requests.byOperation.IssueList).toBe(2);
  });

  it("gh run list --limit 50 asks for 50 runs", async () => {
    const result = await gh(["run", "list", "--limit", "50"], { env: ghEnv(big, work.dir) });
    expect(result.stdout.trim().split("\n")).toHaveLength(50);
  });

  it("gh pr view --comments fetches every comment, review and check page", async () => {
    const before = big.stats().requests.byOperation;
    const result = await gh(["pr", "view", "500", "--comments"], { env: ghEnv(big, work.dir) });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("comment 120");
    expect(result.stdout).toContain("review 105");
    const after = big.stats().requests.byOperation;
    const delta = (op: string) => (after[op] ?? 0) - (before[op] ?? 0);
    expect([
      delta("PullRequestByNumber"),
      delta("CommentsForPullRequest"),
      delta("ReviewsForPullRequest"),
      delta("PullRequestStatusChecks"),
    ]).toEqual([1, 1, 1, 1]);
  });

  it("gh pr checks lists all 105 checks over two pages", async () => {
    const result = await gh(["pr", "checks", "500"], { env: ghEnv(big, work.dir) });
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split("\n")).toHaveLength(105);
    expect(result.stdout).toContain("check-105\tpass");
  });
});
