import { describe, expect, it } from "vitest";
import {
  brokerDownMessage,
  DEFAULT_FALLBACK,
  parseFallback,
} from "../../../agents-shim/core/fallback-policy.js";

describe("the broker-down policy", () => {
  it("fails by default", () => {
    expect(DEFAULT_FALLBACK).toBe("fail");
  });
  it.each([
    { input: "fail", policy: "fail" },
    { input: " DIRECT ", policy: "direct" },
    { input: "yes", policy: undefined },
    { input: undefined, policy: undefined },
  ])("parses $input", ({ input, policy }) => {
    expect(parseFallback(input)).toBe(policy);
  });
  it("tells a failing gh how to get going again", () => {
    const text = brokerDownMessage("fail", "no broker listening on /s");
    expect(text).toContain("no broker listening on /s");
    expect(text).toContain("gh was not run");
    expect(text).toContain("AO_BROKER_FALLBACK=direct");
  });
  it("says that direct gh is unaccounted and how to stop it", () => {
    const text = brokerDownMessage("direct", "down");
    expect(text).toContain("directly (unaccounted");
    expect(text).toContain("AO_BROKER_FALLBACK=fail");
  });
});
