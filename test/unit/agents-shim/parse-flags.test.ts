import { describe, expect, it } from "vitest";
import { parseHelperArgs } from "../../../agents-shim/core/parse-flags.js";

describe("parseHelperArgs", () => {
  it("reads a command and its --flag value pairs, empty values included", () => {
    expect(parseHelperArgs(["session", "--id", "", "--cache", "/c"], ["id", "cache"])).toEqual({
      command: "session",
      flags: { id: "", cache: "/c" },
    });
  });
  it.each([
    { name: "no command", argv: [], error: /command first/ },
    { name: "a flag first", argv: ["--id", "x"], error: /command first/ },
    { name: "an unknown flag", argv: ["session", "--evil", "x"], error: /unknown flag --evil/ },
    { name: "a flag without value", argv: ["session", "--id"], error: /--id needs a value/ },
    { name: "a bare word", argv: ["session", "oops", "x"], error: /expected --flag/ },
  ])("refuses $name", ({ argv, error }) => {
    expect(() => parseHelperArgs(argv, ["id"])).toThrow(error);
  });
});
