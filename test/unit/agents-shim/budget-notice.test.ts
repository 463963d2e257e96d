import { describe, expect, it } from "vitest";
import { budgetNotice, formatWait } from "../../../agents-shim/core/budget-notice.js";

const NOW = Date.parse("2026-05-01T12:00:00.000Z");
const RESET = "2026-05-01T12:03:20.000Z";

describe("budgetNotice", () => {
  describe("when a bucket is spent for everyone", () => {
    it("says which, and when it refills", () => {
      const notice = budgetNotice(
        { resources: { graphql: { limit: 5000, remaining: 200, reserved: 250, resetAt: RESET } } },
        "s1",
        NOW,
      );
      expect(notice?.key).toBe(`graphql:global:${RESET}`);
      expect(notice?.message).toContain("GitHub's graphql budget for agents is spent");
      expect(notice?.message).toContain("12:03:20 UTC (in about 3m20s)");
      expect(notice?.message).toContain("Ctrl-C stops it");
    });
  });

  describe("when this session used its fair share", () => {
    it("says so", () => {
      const notice = budgetNotice(
        {
          resources: { core: { limit: 5000, remaining: 3000, reserved: 0, resetAt: RESET } },
          sessions: [{ id: "s1", spent: { core: 1000 }, share: 0.2 }],
        },
        "s1",
        NOW,
      );
      expect(notice?.key).toBe(`core:share:${RESET}`);
      expect(notice?.message).toContain("used its fair share of GitHub's core budget (1000 REST requests");
    });
  });

  describe("when nothing is spent", () => {
    it.each([
      {
        name: "plenty left",
        budget: { resources: { graphql: { limit: 5000, remaining: 4000, reserved: 500, resetAt: RESET } } },
      },
      {
        name: "another session over its share",
        budget: {
          resources: { graphql: { limit: 5000, remaining: 4000, resetAt: RESET } },
          sessions: [{ id: "other", spent: { graphql: 4000 }, share: 0.1 }],
        },
      },
      {
        name: "a window that already reset",
        budget: {
          resources: { graphql: { limit: 5000, remaining: 0, resetAt: "2026-05-01T11:59:00.000Z" } },
        },
      },
      {
        name: "an unreadable reset time",
        budget: { resources: { graphql: { limit: 5000, remaining: 0, resetAt: "?" } } },
      },
    ])("stays quiet ($name)", ({ budget }) => {
      expect(budgetNotice(budget, "s1", NOW)).toBeUndefined();
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
