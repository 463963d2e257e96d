import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseProfile } from "../../../bench/core/profile-schema.js";
import { BUILTIN_PROFILES, loadProfile } from "../../../bench/load-profile.js";

describe("workload profiles", () => {
  it("ships quiet (placeholder sessions, no agents) and active (live agents)", () => {
    expect(loadProfile("quiet").agents).toBeNull();
    const active = loadProfile("active");
    expect(active.agents?.ciWatch.prChecksWatch).toBeGreaterThan(0);
    expect(active.agents?.ciWatch.runWatch).toBeGreaterThan(0);
    expect(active.orchestrator.ao.cycleS).toBe(30);
    expect(active.orchestrator.ao.batchSize).toBe(25);
  });

  it("refuses an unknown key, naming it", () => {
    const result = parseProfile({ ...(BUILTIN_PROFILES.quiet as object), agentz: null });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/agentz/);
  });

  it("refuses a range whose min exceeds its max", () => {
    const quiet = BUILTIN_PROFILES.quiet as { world: Record<string, unknown> };
    const result = parseProfile({ ...quiet, world: { ...quiet.world, reviewDelayS: { min: 10, max: 5 } } });
    expect(result.ok).toBe(false);
  });

  it("loads a FILE and explains a bad one", () => {
    const file = join(tmpdir(), `bench-profile-${process.pid}.json`);
    writeFileSync(file, JSON.stringify({ ...(BUILTIN_PROFILES.quiet as object), name: "mine" }));
    expect(loadProfile(file).name).toBe("mine");
    writeFileSync(file, "{not json");
    expect(() => loadProfile(file)).toThrow(/not JSON/);
    expect(() => loadProfile("/nonexistent/profile.json")).toThrow(
      /not a built-in profile \(quiet, active\)/,
    );
  });
});
