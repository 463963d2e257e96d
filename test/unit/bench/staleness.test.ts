import { describe, expect, it } from "vitest";
import { FactHistory, judgeStaleness } from "../../../bench/core/staleness.js";

const history = [
  { at: 1000, value: "pending" },
  { at: 5000, value: "success" },
  { at: 9000, value: "failure" },
];

describe("judgeStaleness", () => {
  it("calls an answer that still matches the truth current", () => {
    expect(judgeStaleness(history, "success", 6000)).toEqual({ kind: "current" });
  });

  it("measures a stale answer from the instant the truth moved away from it", () => {
    expect(judgeStaleness(history, "pending", 7000)).toEqual({ kind: "stale", staleMs: 2000 });
    expect(judgeStaleness(history, "pending", 9500)).toEqual({ kind: "stale", staleMs: 4500 });
  });

  describe("when the answered value was never the truth", () => {
    it("says unknown rather than guessing", () => {
      expect(judgeStaleness(history, "cancelled", 9500)).toEqual({ kind: "unknown" });
      expect(judgeStaleness(history, "pending", 500)).toEqual({ kind: "unknown" });
    });
  });
});

describe("FactHistory", () => {
  it("records only changes", () => {
    const h = new FactHistory();
    expect(h.record("k", 1, "a")).toBe(true);
    expect(h.record("k", 2, "a")).toBe(false);
    expect(h.record("k", 3, "b")).toBe(true);
    expect(h.valueAt("k", 2)).toBe("a");
    expect(h.valueAt("k", 3)).toBe("b");
  });

  describe("when a change arrives stamped in the past (a late timed simulator event)", () => {
    it("files it at its own time", () => {
      const h = new FactHistory();
      h.record("k", 100, "queued");
      h.record("k", 300, "done");
      h.record("k", 200, "running");
      expect(h.valueAt("k", 250)).toBe("running");
      expect(h.judge("k", "queued", 260)).toEqual({ kind: "stale", staleMs: 60 });
    });
  });
});
