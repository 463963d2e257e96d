import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadScenario } from "../../../github-sim/core/load-scenario.js";
import { parseScenario } from "../../../github-sim/core/scenario-schema.js";

const DOC = readFileSync(join(import.meta.dirname, "..", "..", "..", "docs", "simulator.md"), "utf8");

describe("docs/simulator.md", () => {
  describe("when its scenario example is loaded", () => {
    it("is a valid scenario that builds the world it describes", () => {
      const example = /## Scenarios[\s\S]*?```json\n([\s\S]*?)\n```/.exec(DOC)?.[1];
      expect(example).toBeDefined();
      const parsed = parseScenario(JSON.parse(example as string));
      expect(parsed.ok ? "" : parsed.message).toBe("");
      if (!parsed.ok) return;
      const { world, engine } = loadScenario(parsed.value, { now: () => 1_800_000_000_000 });
      const repo = world.requireRepo("acme/widgets");
      expect(repo.pulls.get(1)?.title).toBe("Add a thing");
      expect(repo.checkRuns.get(2002)?.status).toBe("queued");
      expect(engine.pending()).toBe(4);
    });
  });
});
