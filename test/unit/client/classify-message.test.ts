import { describe, expect, it } from "vitest";
import { classifyServerMessage } from "../../../client/index.js";

describe("classifyServerMessage", () => {
  it.each([
    { name: "a result", value: { jsonrpc: "2.0", id: 1, result: { a: 1 } }, kind: "result" },
    { name: "a null result", value: { jsonrpc: "2.0", id: 1, result: null }, kind: "result" },
    { name: "an error", value: { jsonrpc: "2.0", id: 2, error: { code: -1, message: "m" } }, kind: "error" },
    {
      name: "an error with id null",
      value: { jsonrpc: "2.0", id: null, error: { code: -1, message: "m" } },
      kind: "error",
    },
    { name: "a notification", value: { jsonrpc: "2.0", method: "event", params: {} }, kind: "notification" },
    { name: "a non-object", value: [1], kind: "invalid" },
    { name: "a wrong version", value: { jsonrpc: "1.0", id: 1, result: 1 }, kind: "invalid" },
    { name: "an object id", value: { jsonrpc: "2.0", id: {}, result: 1 }, kind: "invalid" },
    { name: "a malformed error", value: { jsonrpc: "2.0", id: 1, error: { code: "x" } }, kind: "invalid" },
    {
      name: "an error with non-object data",
      value: { jsonrpc: "2.0", id: 1, error: { code: 1, message: "m", data: 3 } },
      kind: "invalid",
    },
    { name: "a response without result", value: { jsonrpc: "2.0", id: 1 }, kind: "invalid" },
    { name: "neither id nor method", value: { jsonrpc: "2.0" }, kind: "invalid" },
  ])("recognizes $name", ({ value, kind }) => {
    expect(classifyServerMessage(value).kind).toBe(kind);
  });
});
