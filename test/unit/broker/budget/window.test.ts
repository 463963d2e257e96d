import { describe, expect, it } from "vitest";
import {
  type BudgetWindow,
  freshWindow,
  mergeObservation,
  rollIfDue,
} from "../../../../broker/budget/core/window.js";

const policy = { windowMs: 3_600_000, defaultLimit: 5000, resetMarginMs: 1000 };
const T = 1_700_000_000_000;
const observed = (over: Partial<BudgetWindow> = {}): BudgetWindow => ({
  limit: 5000,
  remaining: 4000,
  resetAt: T + 1_800_000,
  startAt: T - 1_800_000,
  estimated: false,
  ...over,
});

describe("freshWindow", () => {
  it("assumes the default limit and a full window until GitHub answers", () => {
    expect(freshWindow(T, policy)).toEqual({
      limit: 5000,
      remaining: 5000,
      resetAt: T + 3_600_000,
      startAt: T,
      estimated: true,
    });
  });
});

describe("rollIfDue", () => {
  describe("when the reset has not passed by the margin", () => {
    it("keeps the window", () => {
      const w = observed();
      expect(rollIfDue(w, w.resetAt + 999, policy)).toEqual({ window: w, rolled: false });
    });
  });
  describe("when the reset passed by the margin", () => {
    it("refills to the limit and guesses the next reset", () => {
      const w = observed({ remaining: 0 });
      const now = w.resetAt + 1000;
      expect(rollIfDue(w, now, policy)).toEqual({
        window: { limit: 5000, remaining: 5000, resetAt: now + 3_600_000, startAt: now, estimated: true },
        rolled: true,
      });
    });
  });
});

describe("mergeObservation", () => {
  it.each([
    {
      name: "the first observation replaces the default guess, keeping spend counted under the guess",
      stored: undefined,
      obs: { limit: 5000, remaining: 4990, resetAt: T + 60_000 },
      want: { remaining: 4990, resetAt: T + 60_000, newWindow: false, adopted: true, estimated: false },
    },
    {
      name: "a first observation of a window that already ended is ignored",
      stored: undefined,
      obs: { limit: 5000, remaining: 0, resetAt: T - 5_000 },
      want: { remaining: 5000, resetAt: T + 3_600_000, newWindow: false, adopted: false, estimated: true },
    },
    {
      name: "same window, lower remaining: the lower wins",
      stored: observed({ remaining: 4000 }),
      obs: { limit: 5000, remaining: 3990, resetAt: T + 1_800_000 },
      want: { remaining: 3990, resetAt: T + 1_800_000, newWindow: false, adopted: true, estimated: false },
    },
    {
      name: "same window, a late answer with higher remaining: the lower is kept",
      stored: observed({ remaining: 4000 }),
      obs: { limit: 5000, remaining: 4100, resetAt: T + 1_800_000 },
      want: { remaining: 4000, resetAt: T + 1_800_000, newWindow: false, adopted: true, estimated: false },
    },
    {
      name: "same window within GitHub's one-second rounding",
      stored: observed({ remaining: 4000 }),
      obs: { limit: 5000, remaining: 3999, resetAt: T + 1_800_000 + 600 },
      want: { remaining: 3999, resetAt: T + 1_800_600, newWindow: false, adopted: true, estimated: false },
    },
    {
      name: "a later reset is a new window and clears per-session spend",
      stored: observed({ remaining: 10 }),
      obs: { limit: 5000, remaining: 4999, resetAt: T + 5_400_000 },
      want: { remaining: 4999, resetAt: T + 5_400_000, newWindow: true, adopted: true, estimated: false },
    },
    {
      name: "a later reset after our own roll keeps the spend already counted in the new window",
      stored: observed({ remaining: 5000, estimated: true, resetAt: T + 3_600_000 }),
      obs: { limit: 5000, remaining: 4990, resetAt: T + 3_610_000 },
      want: { remaining: 4990, resetAt: T + 3_610_000, newWindow: false, adopted: true, estimated: false },
    },
    {
      name: "an earlier reset is a late answer from the old window and is ignored",
      stored: observed({ remaining: 4999, resetAt: T + 5_400_000 }),
      obs: { limit: 5000, remaining: 3, resetAt: T + 1_800_000 },
      want: { remaining: 4999, resetAt: T + 5_400_000, newWindow: false, adopted: false, estimated: false },
    },
    {
      name: "an earlier but still future reset corrects a roll we made too early",
      stored: observed({ remaining: 5000, resetAt: T + 3_600_000, estimated: true }),
      obs: { limit: 5000, remaining: 2, resetAt: T + 2_000 },
      want: { remaining: 2, resetAt: T + 2_000, newWindow: false, adopted: true, estimated: false },
    },
    {
      name: "a changed limit is adopted",
      stored: observed({ remaining: 4000 }),
      obs: { limit: 15000, remaining: 3990, resetAt: T + 1_800_000 },
      want: { remaining: 3990, resetAt: T + 1_800_000, newWindow: false, adopted: true, estimated: false },
    },
  ])("$name", ({ stored, obs, want }) => {
    const result = mergeObservation(stored, obs, T, policy);
    expect({
      remaining: result.window.remaining,
      resetAt: result.window.resetAt,
      newWindow: result.newWindow,
      adopted: result.adopted,
      estimated: result.window.estimated,
    }).toEqual(want);
    if (result.adopted) expect(result.window.limit).toBe(obs.limit);
  });
});
