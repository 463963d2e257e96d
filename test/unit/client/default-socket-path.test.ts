import { describe, expect, it } from "vitest";
import { defaultSocketPath } from "../../../client/index.js";

describe("defaultSocketPath", () => {
  it.each([
    {
      name: "AO_BROKER_SOCKET when set",
      env: { AO_BROKER_SOCKET: "/run/ao/b.sock" },
      expected: "/run/ao/b.sock",
    },
    { name: "the home default when unset", env: {}, expected: "/home/u/.ao-broker/broker.sock" },
    {
      name: "the home default when empty",
      env: { AO_BROKER_SOCKET: "" },
      expected: "/home/u/.ao-broker/broker.sock",
    },
  ])("returns $name", ({ env, expected }) => {
    expect(defaultSocketPath({ env, home: "/home/u" })).toBe(expected);
  });
});
