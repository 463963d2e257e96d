import { describe, expect, it } from "vitest";
import { renderTemplate, templatePlaceholders } from "../../../agents-shim/core/render-template.js";

describe("renderTemplate", () => {
  describe("when every placeholder has a value", () => {
    it("fills each one", () => {
      expect(renderTemplate("a='@AOB_NODE@' b='@AOB_X@' c='@AOB_NODE@'", { NODE: "/n", X: "y" })).toBe(
        "a='/n' b='y' c='/n'",
      );
    });
    it("escapes single quotes the POSIX way so the shell reads the value back unchanged", () => {
      expect(renderTemplate("p='@AOB_P@'", { P: "/home/o'brien/bin" })).toBe("p='/home/o'\\''brien/bin'");
    });
  });

  describe("when a value is unusable", () => {
    it.each([
      { name: "newline", value: "a\nb" },
      { name: "carriage return", value: "a\rb" },
      { name: "NUL", value: "a\0b" },
    ])("refuses a $name", ({ value }) => {
      expect(() => renderTemplate("'@AOB_P@'", { P: value })).toThrow(/newline or NUL/);
    });
    it("refuses a placeholder without a value", () => {
      expect(() => renderTemplate("'@AOB_MISSING@'", {})).toThrow(/@AOB_MISSING@ has no value/);
    });
  });

  it("lists the placeholders a template uses", () => {
    expect(templatePlaceholders("@AOB_B@ @AOB_A@ @AOB_B@")).toEqual(["A", "B"]);
  });
});
