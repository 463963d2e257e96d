import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor, paginate } from "../../../github-sim/core/paginate.js";
import { isWorldError } from "../../../github-sim/core/world-error.js";

const items = Array.from({ length: 10 }, (_, i) => i);

describe("paginate", () => {
  it.each([
    { name: "first", args: { first: 3 }, items: [0, 1, 2], next: true, prev: false },
    { name: "last", args: { last: 3 }, items: [7, 8, 9], next: false, prev: true },
    {
      name: "first after",
      args: { first: 3, after: encodeCursor(2) },
      items: [3, 4, 5],
      next: true,
      prev: true,
    },
    {
      name: "last before",
      args: { last: 2, before: encodeCursor(5) },
      items: [3, 4],
      next: true,
      prev: true,
    },
    {
      name: "first beyond the end",
      args: { first: 100, after: encodeCursor(8) },
      items: [9],
      next: false,
      prev: true,
    },
    {
      name: "after the last item",
      args: { first: 5, after: encodeCursor(9) },
      items: [],
      next: false,
      prev: true,
    },
  ])("slices $name", ({ args, items: expected, next, prev }) => {
    const page = paginate(items, args);
    expect({ items: page.items, next: page.hasNextPage, prev: page.hasPreviousPage }).toEqual({
      items: expected,
      next,
      prev,
    });
  });

  it("walks the whole list with endCursor", () => {
    const seen: number[] = [];
    let after: string | undefined;
    for (;;) {
      const page = paginate(items, { first: 4, after });
      seen.push(...page.items);
      if (!page.hasNextPage) break;
      after = encodeCursor(page.start + page.items.length - 1);
    }
    expect(seen).toEqual(items);
  });

  it("round-trips cursors and refuses foreign ones in GitHub's words", () => {
    expect(decodeCursor(encodeCursor(42))).toBe(42);
    let error: unknown;
    try {
      decodeCursor("x");
    } catch (e) {
      error = e;
    }
    expect(isWorldError(error) && error.message).toBe("`x` does not appear to be a valid cursor.");
  });
});
