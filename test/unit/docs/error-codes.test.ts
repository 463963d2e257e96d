/**
 * Every AO_ERR_* code declared in a folder's errors.ts is listed in docs/errors.md, and nothing
 * listed there is missing from the code (fastify's errors test; docs/CONTRIBUTING.md, "Errors").
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..", "..");

function errorFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist" || name === "test" || name.startsWith(".")) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) errorFiles(full, out);
    else if (name === "errors.ts") out.push(full);
  }
  return out;
}

function codesInCode(): Set<string> {
  const codes = new Set<string>();
  for (const file of errorFiles(ROOT)) {
    for (const match of readFileSync(file, "utf8").matchAll(/^\s*(AO_ERR_[A-Z0-9_]+)\s*:/gm))
      codes.add(match[1] as string);
  }
  return codes;
}

function codesInDocs(): Set<string> {
  const text = readFileSync(join(ROOT, "docs", "errors.md"), "utf8");
  return new Set([...text.matchAll(/^- `(AO_ERR_[A-Z0-9_]+)`/gm)].map((m) => m[1] as string));
}

describe("error codes", () => {
  it("are declared somewhere", () => {
    expect(codesInCode().size).toBeGreaterThan(10);
  });
  it("are all documented in docs/errors.md", () => {
    const documented = codesInDocs();
    expect([...codesInCode()].filter((c) => !documented.has(c))).toEqual([]);
  });
  it("are not documented when they no longer exist", () => {
    const declared = codesInCode();
    expect([...codesInDocs()].filter((c) => !declared.has(c))).toEqual([]);
  });
});
