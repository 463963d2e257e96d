import { describe, expect, it } from "vitest";
import { isStaleWait, parseWait, windowSum } from "../../../../broker/upstream/index.js";

describe("secondary-limit windows as the views read them", () => {
  const T = 1_700_000_040_000; // a whole minute

  it("counts the current bucket and the 60 before it, as takePace-7.lua does", () => {
    const second = (ms: number) => String(Math.floor(ms / 1000));
    const fields = { [second(T - 61_000)]: "7", [second(T - 60_000)]: "2", [second(T)]: "3" };
    expect(windowSum(fields, T, 1000)).toBe(5);
    expect(windowSum(fields, T + 1_000, 1000)).toBe(3);
    // An hour of minute buckets.
    const minute = (ms: number) => String(Math.floor(ms / 60_000));
    expect(windowSum({ [minute(T - 3_600_000)]: "4", [minute(T - 3_660_000)]: "9" }, T, 60_000)).toBe(4);
  });

  it("reads a recorded wait, and refuses malformed ones", () => {
    expect(parseWait("j1", "5|s1|graphql|1700000100000|1700000040000")).toEqual({
      jobId: "j1",
      sessionId: "s1",
      limit: "content-creation-per-hour",
      endpoint: "graphql",
      until: 1_700_000_100_000,
      since: 1_700_000_040_000,
    });
    expect(parseWait("j2", "3|s1|/repos/:owner/:repo/pulls|x|1")).toBeUndefined();
    expect(parseWait("j3", "9|s1|graphql|1|1")).toBeUndefined();
    expect(parseWait("j4", "3|s1")).toBeUndefined();
  });

  it("drops a wait its job neither took up nor renewed well after it was due", () => {
    const wait = parseWait("j", `4|s|graphql|${T}|${T - 5_000}`)!;
    expect(isStaleWait(wait, T + 9_000, 10_000)).toBe(false);
    expect(isStaleWait(wait, T + 11_000, 10_000)).toBe(true);
  });
});
