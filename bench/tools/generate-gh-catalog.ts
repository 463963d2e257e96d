/**
 * Regenerates bench/replay/gh-2.23-requests.generated.ts from the gh 2.23 traffic captures:
 *   npx tsx bench/tools/generate-gh-catalog.ts
 * A unit test (test/unit/bench/gh-catalog.test.ts) fails when the generated file is not current.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderCatalogModule } from "./gh-catalog-source.js";

const root = join(import.meta.dirname, "..", "..");
const target = join(root, "bench", "replay", "gh-2.23-requests.generated.ts");
writeFileSync(target, renderCatalogModule(join(root, "test", "fixtures", "gh-2.23-traffic", "raw")));
process.stdout.write(`wrote ${target}\n`);
