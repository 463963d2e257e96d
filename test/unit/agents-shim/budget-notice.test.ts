import { describe, expect, it } from "vitest";
import { budgetNotice, formatWait } from "../../../agents-shim/core/budget-notice.js";

const NOW = Date.parse("2026-05-01T12:00:00.000Z");
const RESET = "2026-05-01T12:03:20.000Z";

describe("budgetNotice", () => {
  describe("when a bucket is down to the share kept for AO's polling", () => {
    it("names it and says when it refills", () => {
      const notice = budgetNotice(
        { resources: { graphql: { limit: 5000, remaining: 600, reserved: 150, resetAt: RESET } } },
        NOW,
      );
      expect(notice?.key).toBe(`graphql:${RESET}`);
      expect(notice?.message).toContain(
        "GitHub's graphql budget is nearly spent (600 of 5000 GraphQL points left",
      );
      expect(notice?.message).toContain("until it refills at 12:03:20 UTC (in about 3m20s)");
      expect(notice?.message).toContain("Ctrl-C stops it");
    });
    it("counts requests in flight against what is left", () => {
      const budget = { resources: { core: { limit: 1000, remaining: 150, reserved: 60, resetAt: RESET } } };
      expect(budgetNotice(budget, NOW)?.message).toContain("150 of 1000 REST requests left");
      expect(
        budgetNotice({ resources: { core: { ...budget.resources.core, reserved: 0 } } }, NOW),
      ).toBeUndefined();
    });
  });

  describe("when gh is not waiting for budget", () => {
    it.each([
      {
        name: "plenty left",
        resources: { graphql: { limit: 5000, remaining: 4000, reserved: 500, resetAt: RESET } },
      },
      {
        name: "a window that already reset",
        resources: { graphql: { limit: 5000, remaining: 0, resetAt: "2026-05-01T11:59:00Z" } },
      },
      {
        name: "an unreadable reset time",
        resources: { graphql: { limit: 5000, remaining: 0, resetAt: "?" } },
      },
      { name: "a bucket without a limit", resources: { search: { limit: 0, remaining: 0, resetAt: RESET } } },
    ])("stays quiet ($name)", ({ resources }) => {
      expect(budgetNotice({ resources }, NOW)).toBeUndefined();
    });
  });
});

describe("formatWait", () => {
  it.each([
    { ms: 0, text: "0s" },
    { ms: 59_400, text: "59s" },
    { ms: 200_000, text: "3m20s" },
    { ms: 3_900_000, text: "1h05m" },
  ])("$ms ms → $text", ({ ms, text }) => {
    expect(formatWait(ms)).toBe(text);
  });
});
