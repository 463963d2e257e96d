import { describe, expect, it } from "vitest";
import { actionsRunsTag, actionsRunTag, actionsTag, repoTag } from "../../../../broker/cache/core/facets.js";
import {
  answerFromPage,
  deriveFromPage,
  type HeldPage,
  parseRunsPageBody,
  type RunsPageBody,
  runsRead,
  withOwnMoves,
} from "../../../../broker/cache/core/runs-page.js";

const R = "/repos/Acme/Widgets";
const run = (id: number, branch: string, status = "in_progress") => ({
  id,
  head_branch: branch,
  status,
  conclusion: null,
  updated_at: "2026-12-02T10:00:00Z",
});
const page = (runs: ReturnType<typeof run>[], total = runs.length): RunsPageBody => ({
  total_count: total,
  workflow_runs: runs,
});

describe("runs page", () => {
  describe("when classifying a path", () => {
    it.each([
      {
        name: "the guard's page",
        path: `${R}/actions/runs?per_page=100&exclude_pull_requests=true`,
        kind: "page",
      },
      { name: "a run's record", path: `${R}/actions/runs/42?exclude_pull_requests=true`, kind: "run" },
      {
        name: "gh run list --branch",
        path: `${R}/actions/runs?per_page=20&exclude_pull_requests=true&branch=feat%2Fx`,
        kind: "branch",
      },
      { name: "a run with pull requests", path: `${R}/actions/runs/42`, kind: undefined },
      { name: "a list with pull requests", path: `${R}/actions/runs?per_page=20&branch=b`, kind: undefined },
      {
        name: "another filter",
        path: `${R}/actions/runs?per_page=20&exclude_pull_requests=true&status=completed`,
        kind: undefined,
      },
      {
        name: "a later page",
        path: `${R}/actions/runs?exclude_pull_requests=true&page=2&branch=b`,
        kind: undefined,
      },
      { name: "a run's jobs", path: `${R}/actions/runs/42/jobs?exclude_pull_requests=true`, kind: undefined },
      {
        name: "an extra query on a run",
        path: `${R}/actions/runs/42?exclude_pull_requests=true&x=1`,
        kind: undefined,
      },
    ])("$name", ({ path, kind }) => {
      expect(runsRead(path)?.kind).toBe(kind);
    });

    it("names the repository lower-case, the branch decoded and the page size", () => {
      expect(runsRead(`${R}/actions/runs?per_page=20&exclude_pull_requests=true&branch=feat%2Fx`)).toEqual({
        kind: "branch",
        repo: "acme/widgets",
        branch: "feat/x",
        perPage: 20,
      });
      expect(runsRead(`${R}/actions/runs?exclude_pull_requests=true&branch=b`)).toMatchObject({
        perPage: 30,
      });
    });
  });

  describe("when deriving an answer", () => {
    it("a run's record is its entry on the page, byte for byte as GitHub serialises it", () => {
      const entry = run(7, "a");
      expect(deriveFromPage({ kind: "run", repo: "acme/widgets", id: 7 }, page([run(8, "b"), entry]))).toBe(
        JSON.stringify(entry),
      );
      expect(deriveFromPage({ kind: "run", repo: "acme/widgets", id: 9 }, page([entry]))).toBeUndefined();
    });

    it("a branch's list is the complete page filtered, newest first, with its own total", () => {
      const runs = [run(9, "a"), run(8, "b"), run(7, "a")];
      const read = { kind: "branch", repo: "acme/widgets", branch: "a", perPage: 20 } as const;
      expect(JSON.parse(deriveFromPage(read, page(runs)) ?? "null")).toEqual({
        total_count: 2,
        workflow_runs: [runs[0], runs[2]],
      });
      expect(JSON.parse(deriveFromPage({ ...read, branch: "none" }, page(runs)) ?? "null")).toEqual({
        total_count: 0,
        workflow_runs: [],
      });
    });

    it("a cut page, or more of the branch's runs than a page holds, answers nothing", () => {
      const runs = [run(9, "a"), run(7, "a")];
      const read = { kind: "branch", repo: "acme/widgets", branch: "a", perPage: 20 } as const;
      expect(deriveFromPage(read, page(runs, 101))).toBeUndefined();
      expect(deriveFromPage({ ...read, perPage: 1 }, page(runs))).toBeUndefined();
    });

    describe("from a cut page, with the branch's list stored before", () => {
      const at = (id: number, branch: string, minute: number) => ({
        ...run(id, branch),
        created_at: `2026-12-02T10:${String(minute).padStart(2, "0")}:00Z`,
      });
      const read = { kind: "branch", repo: "acme/widgets", branch: "a", perPage: 20 } as const;
      // The page (newest first) reaches back to minute 10; the repository has 250 runs.
      const cut = page([at(9, "a", 30), at(8, "b", 20), at(7, "a", 15), at(6, "c", 10)], 250);
      const stored = (runs: ReturnType<typeof at>[], total = runs.length) => page(runs, total);

      it("answers when the stored list was complete, all on the page, and newer than its oldest run", () => {
        expect(JSON.parse(deriveFromPage(read, cut, stored([at(7, "a", 15)])) ?? "null")).toEqual({
          total_count: 2,
          workflow_runs: [at(9, "a", 30), at(7, "a", 15)],
        });
      });

      it.each([
        { name: "no stored list", list: undefined },
        { name: "an empty stored list (its time is not known)", list: stored([]) },
        { name: "a stored list that was cut", list: stored([at(7, "a", 15)], 3) },
        { name: "a stored run off the page", list: stored([at(7, "a", 15), at(3, "a", 5)]) },
        { name: "the page not reaching past the stored newest run", list: stored([at(6, "a", 10)]) },
      ])("answers nothing: $name", ({ list }) => {
        expect(deriveFromPage(read, cut, list)).toBeUndefined();
      });
    });

    it("reads only runs lists whose every entry has an id", () => {
      expect(parseRunsPageBody(JSON.stringify(page([run(1, "a")])))).toBeDefined();
      expect(parseRunsPageBody(JSON.stringify({ total_count: 1, workflow_runs: [{}] }))).toBeUndefined();
      expect(parseRunsPageBody("not json")).toBeUndefined();
    });
  });

  describe("when a held page answers", () => {
    const tags = [
      repoTag("acme", "widgets"),
      actionsTag("acme", "widgets"),
      actionsRunTag("acme", "widgets", 7),
    ];
    const held: HeldPage = {
      body: page([run(7, "a")]),
      etag: '"e"',
      contentType: "application/json",
      sentAt: 1_000,
      confirmedAt: 1_000,
      generations: { [tags[0] as string]: 1, [tags[1] as string]: 2, [tags[2] as string]: 3 },
    };
    const input = {
      read: { kind: "run", repo: "acme/widgets", id: 7 } as const,
      held,
      generations: { [tags[0] as string]: 1, [tags[1] as string]: 2, [tags[2] as string]: 3 },
      storedAt: 0,
      now: 5_000,
      maxAgeMs: 20_000,
    };

    it("serves while its tags are where the page left them", () => {
      expect(answerFromPage(input)).toEqual({ body: JSON.stringify(run(7, "a")) });
    });

    it.each([
      { name: "no page", change: { held: undefined }, refused: "absent" },
      { name: "confirmed too long ago", change: { now: 21_001 }, refused: "age" },
      { name: "older than the stored answer", change: { storedAt: 1_001 }, refused: "age" },
      {
        name: "an Actions write since (a re-run)",
        change: { generations: { ...input.generations, [tags[1] as string]: 3 } },
        refused: "moved",
      },
      {
        name: "the run moved by someone else (a webhook)",
        change: { generations: { ...input.generations, [tags[2] as string]: 4 } },
        refused: "moved",
      },
    ])("refuses: $name", ({ change, refused }) => {
      expect(answerFromPage({ ...input, ...change })).toEqual({ refused });
    });

    it("the page's own invalidation keeps it current; a move it did not make does not", () => {
      const runTag = tags[2] as string;
      const branchTag = actionsRunsTag("acme", "widgets", "a");
      const after = withOwnMoves(held, { [runTag]: [3, 4], [branchTag]: [0, 1] });
      expect(
        answerFromPage({ ...input, held: after, generations: { ...input.generations, [runTag]: 4 } }),
      ).toEqual({
        body: JSON.stringify(run(7, "a")),
      });
      // The tag had moved before (5 → 6 is not the page's 3 → 4): it stays mismatched.
      const other = withOwnMoves(held, { [runTag]: [5, 6] });
      expect(
        answerFromPage({ ...input, held: other, generations: { ...input.generations, [runTag]: 6 } }),
      ).toEqual({
        refused: "moved",
      });
    });
  });
});
