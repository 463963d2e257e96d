/**
 * The gh 2.23 traffic captures (test/fixtures/gh-2.23-traffic, recorded from real gh 2.23 and kept in the repository):
 * each `<name>.md` documents a command's requests with GraphQL text, variables and the documented
 * cost; `raw/<name>.jsonl` holds the raw rows. Tests read them instead of restating queries.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const TRAFFIC_DIR = join(import.meta.dirname, "..", "fixtures", "gh-2.23-traffic");

export interface CapturedGraphQL {
  readonly file: string;
  readonly index: number;
  readonly operationName: string;
  readonly query: string;
  readonly variables: Record<string, unknown>;
  readonly requests: number;
  readonly cost: number;
  readonly nodeCount: number;
}

export function capturedGraphQLRequests(): CapturedGraphQL[] {
  const out: CapturedGraphQL[] = [];
  for (const file of readdirSync(TRAFFIC_DIR).filter((f) => f.endsWith(".md") && f !== "README.md")) {
    const text = readFileSync(join(TRAFFIC_DIR, file), "utf8");
    const sections = text.split(/\n## \d+\. /).slice(1);
    sections.forEach((section, index) => {
      const header = section.split("\n")[0] ?? "";
      if (!header.includes("POST /graphql")) return;
      const query = /```graphql\n([\s\S]*?)\n```/.exec(section)?.[1];
      const vars = /Variables: `(.*)`/.exec(section)?.[1];
      const numbers =
        /=> requests=(\d+), \/100 -> \*\*primary cost (\d+) point\(s\)\*\*, nodeCount=(\d+)/.exec(section);
      if (!query || !numbers) return;
      out.push({
        file,
        index,
        operationName: /query (\w+)/.exec(header)?.[1] ?? "(anonymous)",
        query,
        variables: vars ? (JSON.parse(vars) as Record<string, unknown>) : {},
        requests: Number(numbers[1]),
        cost: Number(numbers[2]),
        nodeCount: Number(numbers[3]),
      });
    });
  }
  return out;
}

export interface RawRow {
  readonly seq: number;
  readonly method: string;
  readonly url: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Record<string, unknown>;
  readonly body: { query?: string; variables?: Record<string, unknown> } | null;
  readonly status?: number;
}

export function rawCapture(name: string): RawRow[] {
  return readFileSync(join(TRAFFIC_DIR, "raw", `${name}.jsonl`), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as RawRow);
}
