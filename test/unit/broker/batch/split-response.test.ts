import { describe, expect, it } from "vitest";
import { RATE_LIMIT_ALIAS, splitMergedResponse } from "../../../../broker/batch/index.js";
import { loadGitHubSchema } from "../../../../github/index.js";
import { merge } from "./support/merge-harness.js";

const schema = loadGitHubSchema();
// Two members; member 1's `viewer` starts at line 3, column 1 of the merged text.
const { merged } = merge(schema, [{ query: "{ viewer { login } }" }, { query: "{ viewer { name } }" }]);
const RATE = {
  cost: 1,
  remaining: 4999,
  resetAt: "2030-01-01T00:00:00Z",
  limit: 5000,
  used: 1,
  nodeCount: 0,
};

describe("splitMergedResponse", () => {
  describe("when the merged answer has data", () => {
    it("un-aliases keys, attributes errors, keeps GitHub's extra error members and top-level extensions", () => {
      const split = splitMergedResponse(merged, {
        data: { b0_viewer: { login: "l" }, b1_viewer: null, [RATE_LIMIT_ALIAS]: RATE },
        errors: [
          {
            type: "FORBIDDEN",
            path: ["b1_viewer", "name"],
            extensions: { saml: true },
            locations: [{ line: 3, column: 1 }],
            message: "no",
          },
        ],
        extensions: { warnings: ["w"] },
      });
      expect(split.rateLimit).toEqual(RATE);
      expect(split.members).toEqual([
        {
          kind: "answer",
          id: "m0",
          body: { data: { viewer: { login: "l" } }, extensions: { warnings: ["w"] } },
        },
        {
          kind: "answer",
          id: "m1",
          body: {
            data: { viewer: null },
            errors: [
              {
                type: "FORBIDDEN",
                path: ["viewer", "name"],
                extensions: { saml: true },
                locations: [{ line: 1, column: 3 }],
                message: "no",
              },
            ],
            extensions: { warnings: ["w"] },
          },
        },
      ]);
      const second = split.members[1];
      if (second?.kind === "answer") {
        expect(Object.keys((second.body.errors as object[])[0] as object)).toEqual([
          "type",
          "path",
          "extensions",
          "locations",
          "message",
        ]);
      }
    });

    it("drops errors on the injected rateLimit and reports no rateLimit when it is null", () => {
      const split = splitMergedResponse(merged, {
        data: { b0_viewer: {}, b1_viewer: {}, [RATE_LIMIT_ALIAS]: null },
        errors: [{ message: "x", path: [RATE_LIMIT_ALIAS] }],
      });
      expect(split.rateLimit).toBeUndefined();
      expect(split.members.map((m) => m.kind === "answer" && "errors" in m.body)).toEqual([false, false]);
    });

    it("sends a member whose error location is outside its text to retry alone, and answers the other", () => {
      const split = splitMergedResponse(merged, {
        data: { b0_viewer: {}, b1_viewer: null },
        errors: [{ message: "x", path: ["b1_viewer"], locations: [{ line: 1, column: 1 }] }],
      });
      expect(split.members.map((m) => (m.kind === "answer" ? "answer" : m.reason))).toEqual([
        "answer",
        "unmappable-location",
      ]);
    });
  });

  describe("when the merged answer cannot be attributed", () => {
    it.each([
      {
        name: "no data (GitHub refused the document)",
        body: { errors: [{ message: "Parse error" }] },
        reason: "no-data",
      },
      {
        name: "null data (a non-null root field failed)",
        body: { data: null, errors: [{ message: "x", path: ["b0_viewer"] }] },
        reason: "data-null",
      },
      {
        name: "an error without a path",
        body: { data: { b0_viewer: {}, b1_viewer: {} }, errors: [{ message: "timeout" }] },
        reason: "unattributable-error",
      },
      {
        name: "an error naming no member",
        body: { data: { b0_viewer: {}, b1_viewer: {} }, errors: [{ message: "x", path: ["b7_viewer"] }] },
        reason: "unattributable-error",
      },
      {
        name: "an index written with a leading zero",
        body: { data: { b01_viewer: {} } },
        reason: "unknown-key",
      },
      {
        name: "a root key no member asked for",
        body: { data: { b0_viewer: {}, surprise: 1 } },
        reason: "unknown-key",
      },
      {
        name: "errors that are not a list",
        body: { data: { b0_viewer: {} }, errors: {} },
        reason: "malformed-response",
      },
      { name: "a body that is not an object", body: "oops", reason: "malformed-response" },
      { name: "data that is not an object", body: { data: [1] }, reason: "malformed-response" },
    ])("sends every member to retry alone on $name", ({ body, reason }) => {
      const split = splitMergedResponse(merged, body);
      expect(split.members).toEqual([
        { kind: "retry-alone", id: "m0", reason },
        { kind: "retry-alone", id: "m1", reason },
      ]);
    });
  });
});
