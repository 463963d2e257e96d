import { describe, expect, it } from "vitest";
import {
  actionsRunsPath,
  coverage,
  movedRuns,
  parseRunsPage,
  watchesHead,
} from "../../../lifecycle/core/actions-runs.js";

const run = (id: number, sha: string, status: string, updated: string, created = "2026-01-05T09:00:00Z") => ({
  id,
  head_sha: sha,
  head_branch: `b${id}`,
  status,
  conclusion: status === "completed" ? "success" : null,
  run_attempt: 1,
  created_at: created,
  updated_at: updated,
});

describe("the Actions guard's page", () => {
  it("asks for the newest runs without the pull_requests field (PRs opening would move the ETag)", () => {
    expect(actionsRunsPath("acme/widgets", 100)).toBe(
      "/repos/acme/widgets/actions/runs?per_page=100&exclude_pull_requests=true",
    );
    expect(() => actionsRunsPath("nope", 100)).toThrow(TypeError);
  });

  it("names exactly the runs that moved: new ones, another status or updated_at; none on the first read", () => {
    const before = parseRunsPage({
      total_count: 2,
      workflow_runs: [run(1, "AA", "in_progress", "t1"), run(2, "bb", "completed", "t1")],
    });
    expect(before?.runs.map((r) => r.headSha)).toEqual(["aa", "bb"]);
    if (!before) throw new Error("unparsed");
    expect(movedRuns(null, before)).toEqual([]);
    const marks = new Map(before.runs.map((r) => [r.id, r.mark]));
    const after = parseRunsPage({
      total_count: 3,
      workflow_runs: [
        run(3, "cc", "queued", "t2"),
        run(1, "aa", "in_progress", "t2"), // a job finished inside the run: updated_at moved
        run(2, "bb", "completed", "t1"),
      ],
    });
    if (!after) throw new Error("unparsed");
    expect(movedRuns(marks, after).map((r) => r.id)).toEqual([3, 1]);
  });

  it("refuses what is not a runs page", () => {
    expect(parseRunsPage([])).toBeUndefined();
    expect(parseRunsPage({ workflow_runs: [{ id: 1 }] })).toBeUndefined();
  });

  it("watches every head when the page is complete, and only heads newer than its oldest run when it is full", () => {
    const complete = parseRunsPage({ total_count: 1, workflow_runs: [run(1, "aa", "completed", "t")] });
    if (!complete) throw new Error("unparsed");
    expect(watchesHead(coverage(complete), "ff")).toBe(true);
    const full = parseRunsPage({
      total_count: 50,
      workflow_runs: [
        run(2, "bb", "queued", "t", "2026-01-05T10:00:00Z"),
        run(1, "aa", "completed", "t", "2026-01-05T09:00:00Z"),
      ],
    });
    if (!full) throw new Error("unparsed");
    const cover = coverage(full);
    expect(watchesHead(cover, "BB")).toBe(true);
    // The oldest run on a full page may have older siblings off the page; a head not on it is unknown.
    expect(watchesHead(cover, "aa")).toBe(false);
    expect(watchesHead(cover, "ff")).toBe(false);
  });
});
