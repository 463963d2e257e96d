import { describe, expect, it } from "vitest";
import { chooseBatchClass, DEFAULT_BATCH_BUDGETS_MS, RepeatTracker } from "../../../../broker/batch/index.js";

describe("chooseBatchClass", () => {
  it.each([
    { name: "the lifecycle poller", input: { priority: "lifecycle", repeat: true }, expected: "lifecycle" },
    { name: "gh pr checks --watch", input: { command: "gh pr checks 12 --watch" }, expected: "watch" },
    { name: "gh run watch", input: { command: "gh run watch 1001" }, expected: "watch" },
    { name: "a repeated query", input: { command: "gh pr view 5", repeat: true }, expected: "repeat" },
    { name: "a first-time read", input: { command: "gh pr view 5" }, expected: "interactive" },
    {
      name: "a first read of immutable facts (gh pr comment's PR lookup)",
      input: { command: "gh pr comment 5", immutable: true },
      expected: "immutable",
    },
    {
      name: "the lifecycle's immutable read",
      input: { priority: "lifecycle", immutable: true },
      expected: "lifecycle",
    },
    { name: "background work", input: { priority: "background" }, expected: "background" },
    {
      name: "a branch named like a flag",
      input: { command: "gh pr view feature--watcher" },
      expected: "interactive",
    },
  ] as const)("classifies $name as $expected", ({ input, expected }) => {
    expect(chooseBatchClass(input)).toBe(expected);
  });

  it("gives interactive reads a few ms, repeats and watches under the 1 s added-wait target by default", () => {
    expect(DEFAULT_BATCH_BUDGETS_MS.interactive).toBeLessThanOrEqual(10);
    expect(DEFAULT_BATCH_BUDGETS_MS.repeat).toBe(600);
    // A first read of immutable facts waits for partners once per PR (decision 0023).
    expect(DEFAULT_BATCH_BUDGETS_MS.immutable).toBe(600);
    expect(DEFAULT_BATCH_BUDGETS_MS.watch).toBe(800);
    expect(DEFAULT_BATCH_BUDGETS_MS.background).toBeLessThan(1000);
  });
});

describe("RepeatTracker", () => {
  const request = { sessionId: "s1", query: "{ viewer { login } }", variables: { a: 1 } };

  describe("when the same session sends the same query again", () => {
    it("reports a repeat within the window and not after it", () => {
      const tracker = new RepeatTracker({ windowMs: 1000 });
      expect(tracker.observe(request, 0)).toBe(false);
      expect(tracker.observe(request, 900)).toBe(true);
      expect(tracker.observe(request, 2000)).toBe(false);
    });
  });

  describe("when something differs", () => {
    it("does not count another session, other variables or another operation as a repeat", () => {
      const tracker = new RepeatTracker();
      tracker.observe(request, 0);
      expect(tracker.observe({ ...request, sessionId: "s2" }, 1)).toBe(false);
      expect(tracker.observe({ ...request, variables: { a: 2 } }, 2)).toBe(false);
      expect(tracker.observe({ ...request, operationName: "X" }, 3)).toBe(false);
    });
  });

  describe("when more queries are seen than it may remember", () => {
    it("forgets the least recently seen first", () => {
      const tracker = new RepeatTracker({ maxEntries: 2 });
      tracker.observe({ ...request, sessionId: "a" }, 0);
      tracker.observe({ ...request, sessionId: "b" }, 1);
      tracker.observe({ ...request, sessionId: "a" }, 2);
      tracker.observe({ ...request, sessionId: "c" }, 3);
      expect(tracker.size).toBe(2);
      expect(tracker.observe({ ...request, sessionId: "a" }, 4)).toBe(true);
      expect(tracker.observe({ ...request, sessionId: "b" }, 5)).toBe(false);
    });
  });
});
