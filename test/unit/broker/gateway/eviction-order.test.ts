import { describe, expect, it } from "vitest";
import { EvictionOrder, EvictionTier } from "../../../../broker/gateway/core/eviction-order.js";

describe("EvictionOrder", () => {
  it("picks the oldest of the lowest tier, and never a protected member", () => {
    const order = new EvictionOrder<string>();
    order.set("agent-busy", EvictionTier.protected, 1);
    order.set("agent-idle", EvictionTier.authenticatedIdle, 2);
    order.set("webhook", EvictionTier.unauthenticatedBusy, 3);
    order.set("flood-1", EvictionTier.unauthenticatedIdle, 4);
    order.set("flood-2", EvictionTier.unauthenticatedIdle, 5);
    const evicted: string[] = [];
    for (let victim = order.victim(); victim !== undefined; victim = order.victim()) {
      evicted.push(victim);
      order.delete(victim);
    }
    expect(evicted).toEqual(["flood-1", "flood-2", "webhook", "agent-idle"]);
    expect(order.size).toBe(1);
  });

  it("moves a member to the young end when it changes tier", () => {
    const order = new EvictionOrder<string>();
    order.set("a", EvictionTier.authenticatedIdle, 1);
    order.set("b", EvictionTier.authenticatedIdle, 2);
    order.set("a", EvictionTier.protected, 3);
    order.set("a", EvictionTier.authenticatedIdle, 4);
    expect(order.victim()).toBe("b");
    expect(order.tierOf("a")).toBe(EvictionTier.authenticatedIdle);
  });

  it("lists the members of a tier at or before a cutoff, oldest first", () => {
    const order = new EvictionOrder<string>();
    order.set("old", EvictionTier.unauthenticatedIdle, 10);
    order.set("mid", EvictionTier.unauthenticatedIdle, 20);
    order.set("new", EvictionTier.unauthenticatedIdle, 30);
    order.set("agent", EvictionTier.authenticatedIdle, 5);
    expect(order.expired(EvictionTier.unauthenticatedIdle, 20)).toEqual(["old", "mid"]);
    expect(order.expired(EvictionTier.authenticatedIdle, 4)).toEqual([]);
  });
});
