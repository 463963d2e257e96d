import { describe, expect, it } from "vitest";
import { PRIORITY_CLASSES } from "../../../../broker/pipeline/types.js";
import { AGED_PRIORITY, BULLMQ_PRIORITY, promoteAt } from "../../../../broker/upstream/core/priority.js";

describe("BULLMQ_PRIORITY", () => {
  it("orders lifecycle > interactive > write > background (lower runs first)", () => {
    const numbers = PRIORITY_CLASSES.map((p) => BULLMQ_PRIORITY[p]);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(Math.min(...numbers)).toBeGreaterThanOrEqual(1);
  });
});

describe("promoteAt", () => {
  const bounds = { interactive: 5_000, write: 5_000, background: 20_000 };
  it.each([
    { name: "lifecycle never needs aging", priority: "lifecycle", want: undefined },
    { name: "background is promoted after its bound", priority: "background", want: 1_020_000 },
    { name: "interactive is promoted after its bound", priority: "interactive", want: 1_005_000 },
  ] as const)("$name", ({ priority, want }) => {
    expect(promoteAt(priority, 1_000_000, bounds)).toBe(want);
  });
  it("promotes ahead of every class: BullMQ's un-prioritised wait list", () => {
    expect(AGED_PRIORITY).toBe(0);
    expect(Math.min(...Object.values(BULLMQ_PRIORITY))).toBeGreaterThan(AGED_PRIORITY);
  });
});
