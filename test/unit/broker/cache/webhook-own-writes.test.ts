import { describe, expect, it } from "vitest";
import { withoutOwnWrites } from "../../../../broker/cache/core/webhook-patches.js";

const T0 = Date.UTC(2026, 11, 2);
const written = new Map([
  ["o:acme/widgets#7:comments", T0 - 1_000],
  ["o:acme/widgets#7:state", T0 - 6_000],
  ["o:acme/widgets#8:comments", T0 + 500],
]);

describe("withoutOwnWrites: a webhook reporting the broker's own write does not move again", () => {
  it.each([
    { what: "the same facet, written 1 s before", tags: ["o:acme/widgets#7:comments"], left: [] },
    {
      what: "a facet the write did not move",
      tags: ["o:acme/widgets#7:reviews"],
      left: ["o:acme/widgets#7:reviews"],
    },
    {
      what: "written longer ago than the window",
      tags: ["o:acme/widgets#7:state"],
      left: ["o:acme/widgets#7:state"],
    },
    {
      what: "written after the delivery arrived (not its cause)",
      tags: ["o:acme/widgets#8:comments"],
      left: ["o:acme/widgets#8:comments"],
    },
    {
      what: "a mix keeps order and drops only the own write",
      tags: ["o:acme/widgets#7:reviews", "o:acme/widgets#7:comments", "o:acme/widgets#7:state"],
      left: ["o:acme/widgets#7:reviews", "o:acme/widgets#7:state"],
    },
  ])("$what", ({ tags, left }) => {
    expect(withoutOwnWrites(tags, written, T0, 5_000)).toEqual(left);
  });

  it("a window of 0 moves every tag", () => {
    expect(withoutOwnWrites(["o:acme/widgets#7:comments"], written, T0, 0)).toEqual([
      "o:acme/widgets#7:comments",
    ]);
  });
});
