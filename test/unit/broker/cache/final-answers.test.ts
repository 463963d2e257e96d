import { describe, expect, it } from "vitest";
import {
  completedJobIds,
  completedJobKey,
  finalEndpoint,
  isFinalAnswer,
} from "../../../../broker/cache/core/final-answers.js";
import { restReadTags } from "../../../../broker/cache/core/rest-facets.js";
import { tagsCurrent } from "../../../../broker/cache/core/serve-decision.js";

const R = "/repos/acme/widgets";
const body = (v: unknown) => Buffer.from(JSON.stringify(v));
const ep = (path: string) => {
  const e = finalEndpoint(path);
  if (!e) throw new Error(`not a final endpoint: ${path}`);
  return e;
};

describe("final answers", () => {
  it("a job read by id is final once its body says completed", () => {
    for (const path of [`${R}/actions/jobs/7`, `${R}/check-runs/7`]) {
      expect(ep(path)).toMatchObject({ kind: "job", id: "7" });
      expect(isFinalAnswer(ep(path), { status: 200, body: body({ id: 7, status: "in_progress" }) })).toBe(
        false,
      );
      expect(isFinalAnswer(ep(path), { status: 200, body: body({ id: 7, status: "completed" }) })).toBe(true);
      expect(isFinalAnswer(ep(path), { status: 404, body: body({ status: "completed" }) })).toBe(false);
    }
  });

  it("annotations are final only when the check run was known completed before they were read", () => {
    const e = ep(`${R}/check-runs/7/annotations`);
    expect(e).toMatchObject({ kind: "annotations", id: "7" });
    // gh run watch reads them while the run is running: those stay ordinary.
    expect(isFinalAnswer(e, { status: 200, body: body([]), jobCompletedBefore: false })).toBe(false);
    expect(isFinalAnswer(e, { status: 200, body: body([]) })).toBe(false);
    expect(isFinalAnswer(e, { status: 200, body: body([{ message: "x" }]), jobCompletedBefore: true })).toBe(
      true,
    );
  });

  it("a run is never a final endpoint, even completed (a re-run is the same run id)", () => {
    for (const path of [
      `${R}/actions/runs/42?exclude_pull_requests=true`,
      `${R}/actions/runs/42/jobs`,
      `${R}/actions/runs/42/logs`,
    ])
      expect(finalEndpoint(path), path).toBeUndefined();
  });

  it("a job's log is final (it exists only once the job finished)", () => {
    for (const path of [`${R}/actions/jobs/7/logs`]) {
      expect(ep(path).kind).toBe("log");
      expect(isFinalAnswer(ep(path), { status: 200, body: "log text" })).toBe(true);
      expect(isFinalAnswer(ep(path), { status: 302, body: "" })).toBe(false);
    }
  });

  it("other paths are not final endpoints", () => {
    for (const path of [
      `${R}/actions/runs`,
      `${R}/pulls/3`,
      `${R}/check-runs`,
      "/graphql",
      `${R}/actions/jobs/x`,
    ])
      expect(finalEndpoint(path)).toBeUndefined();
  });

  it("tag motion leaves a final answer current: it keeps no tag", () => {
    const jobPath = `${R}/check-runs/7/annotations`;
    // An ordinary answer reads the repository's jobs tag, which any run's move bumps.
    const reads = restReadTags(jobPath);
    expect(reads.length).toBeGreaterThan(0);
    const moved = Object.fromEntries(reads.map((t) => [t, 5]));
    expect(tagsCurrent(Object.fromEntries(reads.map((t) => [t, 0])), moved)).toBe(false);
    // A final answer is stored with no generations (cache-layer.ts finalize): nothing to compare.
    expect(finalEndpoint(jobPath)?.kind).toBe("annotations");
  });

  it("learns completed jobs from a job, a run's jobs list and a commit's check runs", () => {
    expect(completedJobIds(`${R}/actions/jobs/7`, 200, body({ id: 7, status: "completed" }))).toEqual(["7"]);
    expect(completedJobIds(`${R}/actions/jobs/7`, 200, body({ id: 7, status: "in_progress" }))).toEqual([]);
    expect(
      completedJobIds(
        `${R}/actions/runs/42/jobs?per_page=100`,
        200,
        body({
          total_count: 2,
          jobs: [
            { id: 1, status: "completed" },
            { id: 2, status: "queued" },
          ],
        }),
      ),
    ).toEqual(["1"]);
    expect(
      completedJobIds(
        `${R}/commits/${"a".repeat(40)}/check-runs`,
        200,
        body({ total_count: 1, check_runs: [{ id: 9, status: "completed" }] }),
      ),
    ).toEqual(["9"]);
    expect(completedJobIds(`${R}/pulls/3`, 200, body({ id: 3, status: "completed" }))).toEqual([]);
    expect(completedJobIds(`${R}/actions/jobs/7`, 500, body({ id: 7, status: "completed" }))).toEqual([]);
    expect(completedJobKey("Acme", "Widgets", "7")).toBe("job:acme/widgets#7");
  });
});
