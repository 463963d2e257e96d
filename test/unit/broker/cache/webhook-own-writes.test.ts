import { describe, expect, it } from "vitest";
import { withoutOwnWrites } from "../../../../broker/cache/core/webhook-patches.js";

const T0 = Date.UTC(2026, 11, 2);
const written = new Map([
  ["o:acme/widgets#7:comments", T0 - 1_000],
  ["o:acme/widgets#7:state", T0 - 6_000],
  ["o:acme/widgets#8:comments", T0 + 500],
]);
const arriving = (...tags: string[]) => new Map(tags.map((t) => [t, T0]));

describe("withoutOwnWrites: a webhook reporting the broker's own write does not move again", () => {
  it.each([
    {
      what: "the same facet, written 1 s before the delivery",
      tags: ["o:acme/widgets#7:comments"],
      left: [],
    },
    {
      what: "a facet the write did not move",
      tags: ["o:acme/widgets#7:reviews"],
      left: ["o:acme/widgets#7:reviews"],
    },
    {
      what: "written longer before than the window",
      tags: ["o:acme/widgets#7:state"],
      left: ["o:acme/widgets#7:state"],
    },
    {
      what: "written after the delivery arrived (the write's move came after the change)",
      tags: ["o:acme/widgets#8:comments"],
      left: [],
    },
    {
      what: "a mix keeps order and drops only the own write",
      tags: ["o:acme/widgets#7:reviews", "o:acme/widgets#7:comments", "o:acme/widgets#7:state"],
      left: ["o:acme/widgets#7:reviews", "o:acme/widgets#7:state"],
    },
  ])("$what", ({ tags, left }) => {
    expect(withoutOwnWrites(arriving(...tags), written, 5_000)).toEqual(left);
  });

  it("each tag is judged by when its delivery arrived", () => {
    const arrivals = new Map([["o:acme/widgets#7:comments", T0 + 5_000]]);
    expect(withoutOwnWrites(arrivals, written, 5_000)).toEqual(["o:acme/widgets#7:comments"]);
  });

  it("a window of 0 moves every tag", () => {
    expect(withoutOwnWrites(arriving("o:acme/widgets#7:comments"), written, 0)).toEqual([
      "o:acme/widgets#7:comments",
    ]);
  });
});
