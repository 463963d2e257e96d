import { describe, expect, it } from "vitest";
import { isWriteCall } from "../../../client/core/write-call.js";

describe("isWriteCall", () => {
  describe("when the call is rest", () => {
    it.each([
      { name: "GET", method: "GET", write: false },
      { name: "lower-case head", method: "head", write: false },
      { name: "OPTIONS", method: "OPTIONS", write: false },
      { name: "POST", method: "POST", write: true },
      { name: "PUT", method: "PUT", write: true },
      { name: "PATCH", method: "PATCH", write: true },
      { name: "DELETE", method: "DELETE", write: true },
    ])("$name → $write", ({ method, write }) => {
      expect(isWriteCall("rest", { method, path: "/x" })).toBe(write);
    });
  });

  describe("when the call is graphql", () => {
    it.each([
      { name: "a query", query: "query { viewer { login } }", write: false },
      { name: "a shorthand query", query: "{ viewer { login } }", write: false },
      {
        name: "a mutation",
        query: 'mutation M($id: ID!) { addComment(input: {subjectId: $id, body: "x"}) { clientMutationId } }',
        write: true,
      },
      { name: "a mutation after a comment line", query: "# note\nmutation { x }", write: true },
      { name: "a mutation among several operations", query: "query A { a } mutation B { b }", write: true },
      { name: "the word in a comment only", query: "# mutation\nquery { a }", write: false },
      { name: "the word in a string only", query: 'query { search(query: "mutation") { n } }', write: false },
      { name: "a field named mutationCount", query: "query { mutationCount }", write: false },
    ])("$name → $write", ({ query, write }) => {
      expect(isWriteCall("graphql", { query })).toBe(write);
    });
  });

  it("treats other methods and malformed params as not writes", () => {
    expect(isWriteCall("session.open", { method: "POST" })).toBe(false);
    expect(isWriteCall("rest", undefined)).toBe(false);
    expect(isWriteCall("graphql", { query: 42 })).toBe(false);
  });
});
