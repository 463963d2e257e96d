import { describe, expect, it } from "vitest";
import { isFairShareExempt, reserveFloor, reserveFraction } from "../../../../broker/budget/core/reserve.js";
import type { PriorityClass } from "../../../../broker/pipeline/types.js";

const reserve = { lifecycle: 0.1, interactive: 0.05 };

describe("reserveFloor", () => {
  it.each<{ name: string; priority: PriorityClass; want: number }>([
    { name: "lifecycle may spend everything", priority: "lifecycle", want: 0 },
    { name: "interactive leaves the lifecycle reserve", priority: "interactive", want: 500 },
    { name: "writes leave both reserves", priority: "write", want: 750 },
    { name: "background leaves both reserves", priority: "background", want: 750 },
  ])("$name", ({ priority, want }) => {
    expect(reserveFloor(5000, priority, reserve)).toBe(want);
  });

  it("rounds the floor down so a tiny window still admits something", () => {
    expect(reserveFloor(20, "background", reserve)).toBe(3);
    expect(reserveFloor(5, "interactive", reserve)).toBe(0);
  });

  it("orders classes: a higher class never has a higher floor", () => {
    const order: PriorityClass[] = ["lifecycle", "interactive", "write", "background"];
    const floors = order.map((p) => reserveFraction(p, reserve));
    expect([...floors].sort((a, b) => a - b)).toEqual(floors);
  });

  it("exempts only lifecycle from fair share", () => {
    expect(isFairShareExempt("lifecycle")).toBe(true);
    expect(isFairShareExempt("interactive")).toBe(false);
    expect(isFairShareExempt("background")).toBe(false);
  });
});
