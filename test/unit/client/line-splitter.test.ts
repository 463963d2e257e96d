import { describe, expect, it } from "vitest";
import { LineSplitter } from "../../../client/index.js";

const text = (lines: Buffer[]) => lines.map((line) => line.toString("utf8"));

describe("LineSplitter", () => {
  describe("when chunks hold whole lines", () => {
    it("returns every line in order without terminators", () => {
      const splitter = new LineSplitter({ maxLineBytes: 100 });
      const { lines, overflow } = splitter.push(Buffer.from("a\nbb\nccc\n"));
      expect(text(lines)).toEqual(["a", "bb", "ccc"]);
      expect(overflow).toBe(false);
      expect(splitter.pendingBytes).toBe(0);
    });
  });

  describe("when a line spans chunks", () => {
    it("holds the prefix until the newline arrives", () => {
      const splitter = new LineSplitter({ maxLineBytes: 100 });
      expect(text(splitter.push(Buffer.from("hel")).lines)).toEqual([]);
      expect(splitter.pendingBytes).toBe(3);
      expect(text(splitter.push(Buffer.from("lo")).lines)).toEqual([]);
      expect(text(splitter.push(Buffer.from("\nnext")).lines)).toEqual(["hello"]);
      expect(text(splitter.push(Buffer.from("\n")).lines)).toEqual(["next"]);
    });

    it("keeps a multi-byte UTF-8 character intact across the split", () => {
      const splitter = new LineSplitter({ maxLineBytes: 100 });
      const bytes = Buffer.from("€✓\n");
      const out: Buffer[] = [];
      for (const byte of bytes) out.push(...splitter.push(Buffer.from([byte])).lines);
      expect(text(out)).toEqual(["€✓"]);
    });
  });

  describe("when lines end with CRLF or are empty", () => {
    it.each([
      { name: "CRLF in one chunk", chunks: ["a\r\nb\r\n"], expected: ["a", "b"] },
      { name: "CR and LF in separate chunks", chunks: ["a\r", "\nb\r", "\n"], expected: ["a", "b"] },
      { name: "empty lines", chunks: ["\n\n\r\na\n\n"], expected: ["a"] },
      { name: "a CR inside a line", chunks: ["a\rb\n"], expected: ["a\rb"] },
    ])("handles $name", ({ chunks, expected }) => {
      const splitter = new LineSplitter({ maxLineBytes: 100 });
      const out = chunks.flatMap((chunk) => splitter.push(Buffer.from(chunk)).lines);
      expect(text(out)).toEqual(expected);
    });
  });

  describe("when a line exceeds the limit", () => {
    it("accepts exactly maxLineBytes, with or without CR", () => {
      const splitter = new LineSplitter({ maxLineBytes: 4 });
      expect(text(splitter.push(Buffer.from("abcd\nabcd\r\n")).lines)).toEqual(["abcd", "abcd"]);
    });

    it("reports overflow for a complete line one byte over, keeping earlier lines", () => {
      const splitter = new LineSplitter({ maxLineBytes: 4 });
      const { lines, overflow } = splitter.push(Buffer.from("ok\nabcde\nlater\n"));
      expect(text(lines)).toEqual(["ok"]);
      expect(overflow).toBe(true);
    });

    it("reports overflow for an unfinished line as soon as it is too long, and holds nothing", () => {
      const splitter = new LineSplitter({ maxLineBytes: 4 });
      expect(splitter.push(Buffer.from("abc")).overflow).toBe(false);
      expect(splitter.push(Buffer.from("de")).overflow).toBe(false); // 5 bytes: may still be "abcd\r"
      const result = splitter.push(Buffer.from("f"));
      expect(result.overflow).toBe(true);
      expect(splitter.pendingBytes).toBe(0);
    });

    it("ignores everything after an overflow", () => {
      const splitter = new LineSplitter({ maxLineBytes: 2 });
      splitter.push(Buffer.from("xxxx"));
      expect(splitter.push(Buffer.from("\nok\n"))).toEqual({ lines: [], overflow: true });
    });

    it("treats a prefix that ends in CR but then grows as too long", () => {
      const splitter = new LineSplitter({ maxLineBytes: 4 });
      splitter.push(Buffer.from("abcd\r"));
      expect(splitter.push(Buffer.from("x\n")).overflow).toBe(true);
    });
  });
});
