import { describe, expect, it } from "vitest";
import { type CallRecord, decodeCallRecord, encodeCallRecord } from "../../../otel/index.js";

const record: CallRecord = {
  at: 1_777_000_000_000,
  sessionId: "ta-12",
  projectId: "widgets",
  invocationId: "inv-1",
  command: "gh.pr.checks",
  method: "POST",
  path: "/graphql",
  operationName: "PullRequestStatusChecks",
  resource: "graphql",
  cost: 0.5,
  cache: "BATCHED",
  status: 200,
  durationMs: 120,
  waitedMs: 15,
  batched: true,
  coalesced: false,
};

describe("CallRecord encoding", () => {
  it("round-trips every field", () => {
    expect(decodeCallRecord(encodeCallRecord(record))).toEqual(record);
    const minimal: CallRecord = {
      ...record,
      projectId: undefined,
      invocationId: undefined,
      operationName: undefined,
    };
    expect(decodeCallRecord(encodeCallRecord(minimal))).toEqual(minimal);
  });

  it.each([
    { name: "not JSON", text: "{oops" },
    { name: "a JSON array", text: "[1,2]" },
    { name: "a missing field", text: JSON.stringify({ t: 1, s: "x" }) },
    { name: "a negative cost", text: encodeCallRecord({ ...record, cost: -1 }) },
  ])("rejects $name", ({ text }) => {
    expect(decodeCallRecord(text)).toBeUndefined();
  });
});
