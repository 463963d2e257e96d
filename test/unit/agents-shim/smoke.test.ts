/** The public face: what other folders and the CLI import exists, and VERSION matches the package. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as shim from "../../../agents-shim/index.js";

describe("agents-shim", () => {
  it("exports its installer, helper and version", () => {
    expect(typeof shim.installShim).toBe("function");
    expect(typeof shim.uninstallShim).toBe("function");
    expect(typeof shim.describeShim).toBe("function");
    expect(typeof shim.runHelper).toBe("function");
    expect(shim.DEFAULT_FALLBACK).toBe("fail");
    expect(Object.keys(shim.ShimErrors).every((k) => k.startsWith("AO_ERR_SHIM_"))).toBe(true);
  });
  it("carries the package's version", () => {
    const pkg = JSON.parse(
      readFileSync(join(import.meta.dirname, "..", "..", "..", "package.json"), "utf8"),
    ) as {
      version: string;
    };
    expect(shim.VERSION).toBe(pkg.version);
  });
  it("ships templates that use exactly the placeholders the installer fills", async () => {
    const { templatePlaceholders } = await import("../../../agents-shim/core/render-template.js");
    const dir = join(import.meta.dirname, "..", "..", "..", "agents-shim", "template");
    expect(templatePlaceholders(readFileSync(join(dir, "gh.sh"), "utf8"))).toEqual([
      "AWK",
      "CHAIN",
      "FALLBACK",
      "GIT_DIR",
      "HELPER",
      "NODE",
      "VERSION",
    ]);
    expect(templatePlaceholders(readFileSync(join(dir, "git.sh"), "utf8"))).toEqual([
      "GIT_DIR",
      "GIT_MAX_DEPTH",
      "REAL_GIT",
      "SHIM_DIR",
      "VERSION",
    ]);
  });
});
