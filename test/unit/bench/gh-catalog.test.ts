import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GH_223_CAPTURES } from "../../../bench/replay/gh-2.23-requests.generated.js";
import { CATALOG_CAPTURES, renderCatalogModule } from "../../../bench/tools/gh-catalog-source.js";
import { capturedGraphQLRequests } from "../../support/traffic.js";

const ROOT = join(import.meta.dirname, "..", "..", "..");

describe("bench/replay/gh-2.23-requests.generated.ts", () => {
  it("is what the captures generate (run npx tsx bench/tools/generate-gh-catalog.ts after changing them)", () => {
    const onDisk = readFileSync(join(ROOT, "bench", "replay", "gh-2.23-requests.generated.ts"), "utf8");
    expect(onDisk).toBe(renderCatalogModule(join(ROOT, "test", "fixtures", "gh-2.23-traffic", "raw")));
  });

  it("holds every capture the replay uses, with gh's documents verbatim", () => {
    expect(Object.keys(GH_223_CAPTURES).sort()).toEqual([...CATALOG_CAPTURES].sort());
    const documented = new Set(capturedGraphQLRequests().map((c) => c.query.trim()));
    for (const [name, requests] of Object.entries(GH_223_CAPTURES)) {
      for (const r of requests)
        if (r.query) expect(documented.has(r.query.trim()), `${name} ${r.operationName}`).toBe(true);
    }
  });

  it("keeps gh's polling cadence: checks --watch every 10 s, run watch every 3 s", () => {
    const watch = GH_223_CAPTURES.pr_checks_watch?.map((r) => r.atS) ?? [];
    expect(watch[2]).toBeCloseTo(10, 0);
    expect(watch[3]).toBeCloseTo(20, 0);
    const run = (GH_223_CAPTURES.run_watch ?? []).filter((r) => r.path.endsWith("/jobs")).map((r) => r.atS);
    expect((run[2] ?? 0) - (run[1] ?? 0)).toBeCloseTo(3, 0);
  });
});
