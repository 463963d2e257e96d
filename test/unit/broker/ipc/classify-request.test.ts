import { describe, expect, it } from "vitest";
import { classifyRequest } from "../../../../broker/ipc/core/classify-request.js";

describe("classifyRequest", () => {
  describe("when the envelope is valid", () => {
    it.each([
      {
        name: "a call with a numeric id",
        value: { jsonrpc: "2.0", id: 1, method: "m", params: { a: 1 } },
        expected: { kind: "call", id: 1, method: "m", params: { a: 1 } },
      },
      {
        name: "a call with a string id",
        value: { jsonrpc: "2.0", id: "x", method: "m" },
        expected: { kind: "call", id: "x", method: "m", params: {} },
      },
      {
        name: "a call with a null id",
        value: { jsonrpc: "2.0", id: null, method: "m" },
        expected: { kind: "call", id: null, method: "m", params: {} },
      },
      {
        name: "a notification",
        value: { jsonrpc: "2.0", method: "m", params: [1] },
        expected: { kind: "notification", method: "m", params: [1] },
      },
    ])("recognizes $name", ({ value, expected }) => {
      expect(classifyRequest(value)).toEqual(expected);
    });
  });

  describe("when the envelope is invalid", () => {
    it.each([
      { name: "an array", value: [], expected: { kind: "batch" } },
      { name: "a string", value: "x", expected: { kind: "invalid", id: null } },
      {
        name: "a boolean id",
        value: { jsonrpc: "2.0", id: true, method: "m" },
        expected: { kind: "invalid", id: null },
      },
      {
        name: "a wrong version, keeping a usable id",
        value: { jsonrpc: 2, id: 7, method: "m" },
        expected: { kind: "invalid", id: 7 },
      },
      {
        name: "an empty method",
        value: { jsonrpc: "2.0", id: 8, method: "" },
        expected: { kind: "invalid", id: 8 },
      },
      { name: "a missing method", value: { jsonrpc: "2.0", id: 9 }, expected: { kind: "invalid", id: 9 } },
    ])("rejects $name", ({ value, expected }) => {
      expect(classifyRequest(value)).toMatchObject(expected);
    });
  });
});
