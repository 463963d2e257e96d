import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderConfigDocs } from "../../../scripts/gen-config-docs.js";

describe("docs/config.md", () => {
  it("is what the config schema generates (run npx tsx scripts/gen-config-docs.ts after changing it)", () => {
    const onDisk = readFileSync(join(import.meta.dirname, "..", "..", "..", "docs", "config.md"), "utf8");
    expect(onDisk).toBe(renderConfigDocs());
  });

  it("documents every key with a description", () => {
    const rows = renderConfigDocs()
      .split("\n")
      .filter((l) => l.startsWith("| `"));
    expect(rows.length).toBeGreaterThan(25);
    for (const row of rows) expect(row.split("|")[4]?.trim().length, row).toBeGreaterThan(5);
  });
});
