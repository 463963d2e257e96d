import { describe, expect, it } from "vitest";
import { restOperationSplit } from "../../../bench/core/rest-split.js";

describe("restOperationSplit", () => {
  it("splits each REST route into fetched and 304 and leaves GraphQL operations out", () => {
    const split = restOperationSplit(
      {
        "GET /repos/{owner}/{repo}/pulls/{pull_number}": 10,
        "GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations": 4,
        PullRequestByNumber: 7,
      },
      { "GET /repos/{owner}/{repo}/pulls/{pull_number}": 6 },
    );
    expect(split).toEqual({
      "GET /repos/{owner}/{repo}/pulls/{pull_number}": { fetched: 4, notModified: 6 },
      "GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations": { fetched: 4, notModified: 0 },
    });
  });

  it("never counts more 304s than requests", () => {
    expect(restOperationSplit({ "GET /x": 2 }, { "GET /x": 5 })).toEqual({
      "GET /x": { fetched: 0, notModified: 2 },
    });
  });
});
