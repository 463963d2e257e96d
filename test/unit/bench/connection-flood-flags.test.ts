import { execFileSync, spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseFloodFlags, USAGE } from "../../../bench/connection-flood.js";

const SCRIPT = join(import.meta.dirname, "..", "..", "..", "bench", "connection-flood.ts");

describe("bench/connection-flood.ts flags", () => {
  it("takes the documented flags with their defaults", () => {
    const flags = parseFloodFlags(["--runs", "1", "--idle", "0"]);
    expect(flags.runs).toBe("1");
    expect(flags.idle).toBe("0");
    expect(flags.seconds).toBe("20");
  });

  it.each([
    [["--foo"], /Unknown option '--foo'/],
    [["--runs", "x"], /--runs: expected a whole number from 1 to 1000000, got "x"/],
    [["--seconds", "0"], /--seconds: expected a whole number from 1/],
    [["stray"], /positional/i],
  ])("refuses %j with a clear message", (argv, message) => {
    expect(() => parseFloodFlags(argv)).toThrow(message);
  });

  it("prints its usage for --help and exits 0; a bad flag prints the error and the usage, exit 2", () => {
    const help = execFileSync(process.execPath, ["--import", "tsx", SCRIPT, "--help"], { encoding: "utf8" });
    expect(help).toContain(USAGE.split("\n")[0]);
    const bad = spawnSync(process.execPath, ["--import", "tsx", SCRIPT, "--frobnicate"], {
      encoding: "utf8",
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^connection-flood: Unknown option '--frobnicate'/);
    expect(bad.stderr).toContain("--reconnects N");
    expect(bad.stderr).not.toMatch(/at parseArgs|ERR_PARSE_ARGS/);
  }, 30_000);
});
