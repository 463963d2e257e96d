import { describe, expect, it } from "vitest";
import { ChangeVisibility } from "../../../bench/core/change-visibility.js";
import { FactHistory } from "../../../bench/core/staleness.js";

describe("ChangeVisibility", () => {
  const history = () => {
    const h = new FactHistory();
    h.record("k", 0, "a");
    h.record("k", 100, "b");
    return h;
  };

  it("times a change until the slowest reader that had read the fact has seen it", () => {
    const v = new ChangeVisibility(history(), 50);
    v.observe("r1", "k", "a", 10);
    v.observe("r2", "k", "a", 20);
    v.observe("r1", "k", "b", 130);
    v.observe("r2", "k", "a", 150); // told old news
    v.observe("r2", "k", "b", 190);
    expect(v.delays(1000)).toEqual([90]);
  });

  it("counts a reader that never caught up until its last read, not the window's end", () => {
    const v = new ChangeVisibility(history(), 50);
    v.observe("r1", "k", "a", 10);
    v.observe("r1", "k", "a", 160);
    expect(v.delays(1000)).toEqual([60]);
  });

  it("ignores changes before the window and readers that start late", () => {
    const v = new ChangeVisibility(history(), 150);
    v.observe("r1", "k", "a", 10);
    v.observe("r1", "k", "b", 200);
    v.observe("r2", "k", "b", 300);
    expect(v.delays(1000)).toEqual([]);
  });
});
