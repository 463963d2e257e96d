import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  AoAttributes,
  GitHubAttributes,
  METRIC_DEFINITIONS,
  OtelErrors,
  SpanNames,
} from "../../../otel/index.js";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const observability = readFileSync(join(ROOT, "docs", "observability.md"), "utf8");
const errors = readFileSync(join(ROOT, "docs", "errors.md"), "utf8");

describe("docs/observability.md", () => {
  it.each(Object.values(METRIC_DEFINITIONS).map((def) => ({ name: def.name, def })))(
    "documents $name with its series, type, unit and attributes",
    ({ def }) => {
      const row = observability.split("\n").find((line) => line.startsWith(`| \`${def.name}\` |`));
      expect(row, def.name).toBeDefined();
      const cells = (row ?? "").split("|").map((c) => c.trim());
      const series =
        def.name.replace(/\./g, "_") +
        (def.kind === "counter" ? "_total" : def.kind === "histogram" ? "_*" : "");
      expect(cells[2]).toBe(`\`${series}\``);
      expect(cells[3]).toBe(def.kind);
      expect(cells[4]).toBe(`\`${def.unit}\``);
      const documented =
        cells[5] === "—" ? [] : (cells[5] ?? "").split(",").map((a) => a.trim().split(" ")[0]);
      expect(documented).toEqual([...def.attributes]);
    },
  );

  it("mentions every attribute and fixed span name", () => {
    for (const name of [
      ...Object.values(AoAttributes),
      ...Object.values(GitHubAttributes),
      ...Object.values(SpanNames),
    ]) {
      expect(observability, name).toContain(`\`${name}\``);
    }
  });
});

describe("docs/errors.md", () => {
  it("lists every otel/ error code under ## otel/", () => {
    const section = errors.split("## otel/")[1]?.split("\n## ")[0] ?? "";
    for (const code of Object.values(OtelErrors)) expect(section, code).toContain(`\`${code}\``);
  });
});
