import { describe, expect, it } from "vitest";
import { PrimaryLimits } from "../../../github-sim/core/primary-limits.js";

const T0 = 1_800_000_000_000;
const limits = () =>
  new PrimaryLimits({
    limits: { core: 3, graphql: 5, search: 2 },
    windowMs: { core: 10_000, graphql: 10_000, search: 60_000 },
  });

describe("PrimaryLimits", () => {
  describe("when nothing was charged yet", () => {
    it("reports the full limit with a reset one window from now", () => {
      expect(limits().snapshot("graphql", T0)).toEqual({
        resource: "graphql",
        limit: 5,
        used: 0,
        remaining: 5,
        reset: Math.ceil((T0 + 10_000) / 1000),
      });
    });
  });

  describe("when charges fit", () => {
    it("opens a fixed window at the first charge and counts within it", () => {
      const l = limits();
      l.charge("graphql", 2, T0);
      const later = l.charge("graphql", 1, T0 + 4_000);
      expect(later).toEqual({
        ok: true,
        snapshot: expect.objectContaining({ used: 3, remaining: 2, reset: (T0 + 10_000) / 1000 }),
      });
    });
  });

  describe("when the window is spent", () => {
    it("refuses without charging and keeps remaining at 0", () => {
      const l = limits();
      for (let i = 0; i < 3; i++) expect(l.charge("core", 1, T0 + i).ok).toBe(true);
      const refused = l.charge("core", 1, T0 + 5);
      expect(refused.ok).toBe(false);
      expect(refused.snapshot).toMatchObject({ used: 3, remaining: 0 });
    });

    it("refuses a query whose cost exceeds what remains", () => {
      const l = limits();
      l.charge("graphql", 4, T0);
      expect(l.charge("graphql", 2, T0 + 1).ok).toBe(false);
      expect(l.snapshot("graphql", T0 + 1).used).toBe(4);
    });

    it("opens a new window at the reset instant", () => {
      const l = limits();
      for (let i = 0; i < 3; i++) l.charge("core", 1, T0);
      expect(l.charge("core", 1, T0 + 9_999).ok).toBe(false);
      const next = l.charge("core", 1, T0 + 10_000);
      expect(next).toEqual({
        ok: true,
        snapshot: expect.objectContaining({ used: 1, reset: (T0 + 20_000) / 1000 }),
      });
    });
  });

  it("keeps resources apart", () => {
    const l = limits();
    l.charge("core", 3, T0);
    expect(l.snapshot("graphql", T0).used).toBe(0);
  });

  it("can be exhausted without a request and reset", () => {
    const l = limits();
    l.exhaust("graphql", T0);
    expect(l.snapshot("graphql", T0).remaining).toBe(0);
    l.reset();
    expect(l.snapshot("graphql", T0).remaining).toBe(5);
  });
});
