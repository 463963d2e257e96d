import { describe, expect, it } from "vitest";
import {
  lineStarts,
  locationToOffset,
  offsetToLocation,
} from "../../../../broker/batch/core/location-map.js";
import { MergedTextBuilder } from "../../../../broker/batch/core/merged-text-builder.js";
import type { LocationMap } from "../../../../broker/batch/index.js";
import { loadGitHubSchema } from "../../../../github/index.js";
import { executeDeterministic, normalizeJson } from "./support/deterministic-executor.js";
import { type MemberSpec, merge, runAlone, runMerged } from "./support/merge-harness.js";

const schema = loadGitHubSchema();

async function errorLocations(specs: readonly MemberSpec[]) {
  const { merged } = merge(schema, specs);
  const { split, response } = await runMerged(schema, merged);
  const mergedLocations = ((response.errors ?? []) as { locations: unknown }[]).map((e) => e.locations);
  const split_ = [];
  for (const [i, outcome] of split.members.entries()) {
    if (outcome.kind !== "answer") throw new Error(`member ${i} was not answered`);
    const alone = await runAlone(schema, specs[i] as MemberSpec);
    expect(normalizeJson(outcome.body), `member ${i}`).toBe(normalizeJson(alone));
    split_.push(((outcome.body.errors ?? []) as { locations: unknown }[]).map((e) => e.locations));
  }
  return { merged, mergedLocations, split: split_ };
}

describe("LocationMap", () => {
  describe("when positions are converted", () => {
    it("counts lines after \\n, \\r\\n and \\r like graphql-js", () => {
      const starts = lineStarts("a\nb\r\nc\rd");
      expect(starts).toEqual([0, 2, 5, 7]);
      expect(offsetToLocation(starts, 5)).toEqual({ line: 3, column: 1 });
      expect(offsetToLocation(starts, 8)).toEqual({ line: 4, column: 2 });
      expect(locationToOffset(starts, { line: 2, column: 1 })).toBe(2);
      expect(locationToOffset(starts, { line: 9, column: 1 })).toBeUndefined();
      expect(locationToOffset(starts, { line: 1, column: 5 })).toBeUndefined();
      expect(locationToOffset(starts, { line: 1, column: 0 })).toBeUndefined();
    });

    it("maps copied text linearly and inserted text onto the token it precedes", () => {
      const builder = new MergedTextBuilder();
      builder.appendSynthetic("HEAD\n");
      builder.appendSlice({
        source: "xx foo bar",
        start: 3,
        end: 10,
        insertions: [{ offset: 7, text: "p_" }],
        owners: [{ member: 0, originStart: 3 }],
      });
      const { text, maps } = builder.build(["xx foo bar"]);
      expect(text).toBe("HEAD\nfoo p_bar");
      const map = maps[0] as LocationMap;
      expect(map.mapLocation({ line: 2, column: 1 })).toEqual({ line: 1, column: 4 });
      expect(map.mapLocation({ line: 2, column: 5 })).toEqual({ line: 1, column: 8 });
      expect(map.mapLocation({ line: 2, column: 6 })).toEqual({ line: 1, column: 8 });
      expect(map.mapLocation({ line: 2, column: 7 })).toEqual({ line: 1, column: 8 });
      expect(map.mapLocation({ line: 1, column: 1 })).toBeUndefined();
    });
  });

  describe("when errors of a merged query are mapped back", () => {
    it("maps a field on a line with several inserted prefixes to where it is alone", async () => {
      const query =
        "query($o: String!, $r: String!, $n: Int!) { repository(owner: $o, name: $r) { pullRequest(number: $n) { number } } }";
      const { mergedLocations, split } = await errorLocations([
        { query: "{ viewer { login } }" },
        { query, variables: { o: "o", r: "r", n: 901 } },
      ]);
      expect(split[1]).toEqual([[{ line: 1, column: 79 }]]);
      // Proof that the mapping did something: the merged position differs.
      expect(mergedLocations).not.toContainEqual([{ line: 1, column: 79 }]);
    });

    it("maps positions in documents with CRLF and CR line ends, tabs and comments", async () => {
      const query =
        'query($n: Int!) {\r\n\t# a comment with { braces } and $n\r\n\trepository(owner: "o", name: "r") {\r\t\tpullRequest(number: $n) { number }\r\n\t}\r\n}';
      const { split } = await errorLocations([
        { query, variables: { n: 5 } },
        { query, variables: { n: 950 } },
      ]);
      expect(split[1]).toEqual([[{ line: 4, column: 3 }]]);
    });

    it("keeps a member whose selection ends in a comment from swallowing the next", async () => {
      const { merged, split } = await errorLocations([
        {
          query:
            'query { repository(owner: "o", name: "r") { pullRequest(number: 999) { number } } # done\n}',
        },
        { query: 'query { repository(owner: "o", name: "s") { pullRequest(number: 998) { number } } }' },
      ]);
      expect(merged.query).toContain("# done\n");
      expect(split).toEqual([[[{ line: 1, column: 45 }]], [[{ line: 1, column: 45 }]]]);
    });

    it("maps an error inside a shared fragment to each owner's own copy", async () => {
      const fragment = "fragment F on Repository { pullRequest(number: 990) { number } }";
      const a = `{ repository(owner: "o", name: "a") { ...F } }\n${fragment}`;
      const b = `\n\n# b puts its fragment first, indented\n   ${fragment}\nquery B { repository(owner: "o", name: "b") { ...F } }`;
      const { merged, split } = await errorLocations([{ query: a }, { query: b }]);
      expect(merged.fragmentCount).toBe(1);
      expect(split).toEqual([[[{ line: 2, column: 28 }]], [[{ line: 4, column: 31 }]]]);
    });
  });

  describe("when a location is not in the caller's text", () => {
    it("returns undefined for the merged header and for other members' text", async () => {
      const { merged } = merge(schema, [{ query: "{ viewer { login } }" }, { query: "{ viewer { name } }" }]);
      const own = merged.members[0]?.locations;
      expect(own?.mapLocation({ line: 1, column: 1 })).toBeUndefined();
      expect(own?.mapLocation({ line: 3, column: 1 })).toBeUndefined();
      expect(own?.mapLocation({ line: 2, column: 1 })).toEqual({ line: 1, column: 3 });
      expect(await executeDeterministic(schema, { query: merged.query })).toHaveProperty("data");
    });
  });
});
