import { inflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { createZip } from "../../../github-sim/core/zip.js";

/** Reads a zip through its central directory, as archive/zip (gh) does. */
function readZip(buf: Buffer): Map<string, string> {
  const end = buf.length - 22;
  expect(buf.readUInt32LE(end)).toBe(0x06054b50);
  const count = buf.readUInt16LE(end + 10);
  let p = buf.readUInt32LE(end + 16);
  const out = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    expect(buf.readUInt32LE(p)).toBe(0x02014b50);
    const size = buf.readUInt32LE(p + 20);
    const nameLen = buf.readUInt16LE(p + 28);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.subarray(p + 46, p + 46 + nameLen).toString("utf8");
    const localNameLen = buf.readUInt16LE(local + 26);
    const data = buf.subarray(local + 30 + localNameLen, local + 30 + localNameLen + size);
    out.set(name, inflateRawSync(data).toString("utf8"));
    p += 46 + nameLen;
  }
  return out;
}

describe("createZip", () => {
  it("writes entries a zip reader finds by name, with their exact contents", () => {
    const zip = createZip([
      { name: "build/1_Set up job.txt", data: "line 1\nline 2\n" },
      { name: "test/4_Run tests.txt", data: "✓ unicode survives\n" },
    ]);
    expect([...readZip(zip)]).toEqual([
      ["build/1_Set up job.txt", "line 1\nline 2\n"],
      ["test/4_Run tests.txt", "✓ unicode survives\n"],
    ]);
  });

  it("is deterministic", () => {
    const entries = [{ name: "a.txt", data: "x" }];
    expect(createZip(entries).equals(createZip(entries))).toBe(true);
  });
});
