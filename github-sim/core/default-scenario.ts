/**
 * The default world (docs/architecture.md, "The simulator"): repo acme/widgets, viewer octocat (user id 1),
 * open PRs #1–#3, issues #10–#12, workflow "CI" (id 42) with run 1001 (jobs 2001–2003) on PR #1's
 * head. It stands still: no timeline, no moving jobs, so the same command prints the same output
 * every time. Tests and docs rely on these exact numbers; change them only with docs/simulator.md.
 *
 * PR #1 (octocat): checks build ✓, test ✗, lint ✓ + status ci/coverage ✓ → `gh pr checks 1` exits 1;
 *   hubot requested changes with a review comment. Run 1001, jobs 2001 build, 2002 test, 2003 lint.
 * PR #2 (monalisa): build ✓, test ✓ + ci/coverage ✓, approved by hubot → exits 0, mergeable.
 * PR #3 (hubot, draft): build ✓, test ✓, and another app's check "deploy-preview" (id 2008) in
 *   progress forever → pending (gh 2.23 exits 1 for pending; newer gh exits 8). Run 1003 is complete,
 *   so `gh run list` shows no ever-growing elapsed time.
 */
import type { Scenario } from "./scenario-schema.js";

const TEST_LOG = [
  "2026-01-05T09:01:05.0000000Z > widgets@1.0.0 test",
  "2026-01-05T09:01:05.1000000Z > vitest run",
  "2026-01-05T09:01:07.2000000Z  ✓ test/widget.test.ts (11 tests)",
  "2026-01-05T09:01:07.3000000Z  FAIL  test/frobnicator.test.ts > frobnicates widgets",
  "2026-01-05T09:01:07.3000000Z AssertionError: expected 41 to be 42",
  "2026-01-05T09:01:07.4000000Z  Tests  1 failed | 11 passed (12)",
  "2026-01-05T09:01:07.5000000Z ##[error]Process completed with exit code 1.",
  "",
].join("\n");

function steps(main: { name: string; log: string; conclusion?: "success" | "failure" }) {
  return [
    { name: "Set up job", log: "2026-01-05T09:01:00.0000000Z Current runner version: '2.321.0'\n" },
    { name: "Checkout", log: "2026-01-05T09:01:01.0000000Z Syncing repository: acme/widgets\n" },
    { name: "Install dependencies", log: "2026-01-05T09:01:02.0000000Z added 312 packages in 4s\n" },
    main.conclusion
      ? { name: main.name, log: main.log, conclusion: main.conclusion }
      : { name: main.name, log: main.log },
    {
      name: "Complete job",
      log: "2026-01-05T09:01:09.0000000Z Cleaning up orphan processes\n",
      conclusion: "success" as const,
    },
  ];
}

export const DEFAULT_SCENARIO: Scenario = {
  name: "default",
  viewer: { login: "octocat", id: 1, name: "The Octocat" },
  users: [
    { login: "hubot", id: 2, name: "Hubot" },
    { login: "monalisa", id: 3, name: "Mona Lisa" },
  ],
  repos: [
    {
      owner: "acme",
      name: "widgets",
      id: 100_001,
      description: "Widgets for everyone",
      defaultBranch: "main",
      labels: [
        { name: "bug", color: "d73a4a", description: "Something isn't working" },
        { name: "documentation", color: "0075ca", description: "Improvements or additions to documentation" },
        { name: "enhancement", color: "a2eeef", description: "New feature or request" },
        { name: "good first issue", color: "7057ff", description: "Good for newcomers" },
      ],
      workflows: [{ id: 42, name: "CI", path: ".github/workflows/ci.yml" }],
      pulls: [
        {
          number: 1,
          title: "Add widget frobnicator",
          body: "Adds the frobnicator and wires it into the widget pipeline.\n\nFixes #10.",
          author: "octocat",
          head: "feature/frobnicator",
          labels: ["enhancement"],
          assignees: ["octocat"],
          reviewers: ["monalisa"],
          commits: [
            { message: "Add frobnicator skeleton" },
            { message: "Wire frobnicator into the pipeline" },
          ],
          files: [
            { path: "src/frobnicator.ts", additions: 120, deletions: 0, status: "added" },
            { path: "src/index.ts", additions: 3, deletions: 1, status: "modified" },
            { path: "test/frobnicator.test.ts", additions: 45, deletions: 0, status: "added" },
          ],
          ci: {
            workflowId: 42,
            runId: 1001,
            jobs: [
              {
                id: 2001,
                name: "build",
                conclusion: "success",
                steps: steps({ name: "Build", log: "2026-01-05T09:01:04.0000000Z tsc -p .\n" }),
              },
              {
                id: 2002,
                name: "test",
                conclusion: "failure",
                steps: steps({ name: "Run tests", log: TEST_LOG, conclusion: "failure" }),
                annotations: [
                  {
                    path: "test/frobnicator.test.ts",
                    startLine: 12,
                    level: "failure",
                    title: "frobnicates widgets",
                    message: "AssertionError: expected 41 to be 42",
                  },
                ],
              },
              {
                id: 2003,
                name: "lint",
                conclusion: "success",
                steps: steps({
                  name: "Lint",
                  log: "2026-01-05T09:01:04.0000000Z Checked 42 files, no problems\n",
                }),
              },
            ],
            artifacts: [{ name: "coverage-report", sizeInBytes: 20_480 }],
          },
          statuses: [{ context: "ci/coverage", state: "success", description: "Coverage 87%" }],
          reviews: [
            {
              author: "hubot",
              state: "CHANGES_REQUESTED",
              body: "Please handle the empty widget list.",
              comments: [
                { path: "src/frobnicator.ts", line: 14, body: "This throws on an empty widget list." },
              ],
            },
          ],
          comments: [
            { author: "hubot", body: "Thanks! CI shows a failing test in `frobnicates widgets`." },
            { author: "octocat", body: "Looking into it." },
          ],
        },
        {
          number: 2,
          title: "Fix typo in README",
          body: "Fixes a typo in the installation section.",
          author: "monalisa",
          head: "docs/readme-typo",
          labels: ["documentation"],
          files: [{ path: "README.md", additions: 1, deletions: 1, status: "modified" }],
          ci: {
            workflowId: 42,
            runId: 1002,
            jobs: [
              { id: 2004, name: "build", conclusion: "success" },
              { id: 2005, name: "test", conclusion: "success" },
            ],
          },
          statuses: [{ context: "ci/coverage", state: "success", description: "Coverage 87%" }],
          reviews: [{ author: "hubot", state: "APPROVED", body: "LGTM" }],
          comments: [{ author: "monalisa", body: "Small fix, ready to merge." }],
        },
        {
          number: 3,
          title: "Dashboard: first draft",
          body: "Work in progress: a dashboard for widget health.",
          author: "hubot",
          head: "feature/dashboard",
          draft: true,
          labels: ["enhancement"],
          files: [{ path: "src/dashboard.ts", additions: 200, deletions: 0, status: "added" }],
          ci: {
            workflowId: 42,
            runId: 1003,
            jobs: [
              { id: 2006, name: "build", conclusion: "success" },
              { id: 2007, name: "test", conclusion: "success" },
            ],
          },
          checks: [{ id: 2008, name: "deploy-preview", app: "preview-bot", status: "in_progress" }],
          comments: [{ author: "hubot", body: "Early preview, not ready for review yet." }],
        },
      ],
      issues: [
        {
          number: 10,
          title: "Widgets render upside down on Safari",
          body: "Steps to reproduce:\n1. Open the demo page in Safari 17\n2. Every widget is upside down",
          author: "monalisa",
          labels: ["bug"],
          assignees: ["octocat"],
          comments: [
            { author: "hubot", body: "I can reproduce this on Safari 17." },
            { author: "octocat", body: "Working on a fix in #1." },
          ],
        },
        {
          number: 11,
          title: "Document the frobnicator API",
          body: "The frobnicator needs a reference page.",
          author: "hubot",
          labels: ["documentation", "good first issue"],
          comments: [{ author: "monalisa", body: "I'd like to take this one." }],
        },
        {
          number: 12,
          title: "Support dark mode",
          body: "Widgets should follow the system colour scheme.",
          author: "octocat",
          labels: ["enhancement"],
          comments: [{ author: "monalisa", body: "+1, this would be great." }],
        },
      ],
    },
  ],
};
