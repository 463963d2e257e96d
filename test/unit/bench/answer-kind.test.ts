import { describe, expect, it } from "vitest";
import { classifyAnswer } from "../../../bench/core/answer-kind.js";

describe("classifyAnswer", () => {
  it.each([
    { name: "a REST 200", status: 200, json: {}, graphql: false, ok: true, rl: null },
    { name: "a 304", status: 304, json: undefined, graphql: false, ok: true, rl: null },
    {
      name: "GraphQL RATE_LIMITED",
      status: 200,
      json: { errors: [{ type: "RATE_LIMITED" }] },
      graphql: true,
      ok: false,
      rl: "primary",
    },
    {
      name: "REST 403 primary",
      status: 403,
      json: { message: "API rate limit exceeded for user ID 1." },
      graphql: false,
      ok: false,
      rl: "primary",
    },
    {
      name: "REST 429 secondary",
      status: 429,
      json: { message: "You have exceeded a secondary rate limit. Please wait" },
      graphql: false,
      ok: false,
      rl: "secondary",
    },
    {
      name: "a 403 for permissions",
      status: 403,
      json: { message: "Resource not accessible" },
      graphql: false,
      ok: false,
      rl: null,
    },
    {
      name: "GraphQL errors",
      status: 200,
      json: { errors: [{ type: "NOT_FOUND" }] },
      graphql: true,
      ok: false,
      rl: null,
    },
    { name: "a 500", status: 500, json: {}, graphql: false, ok: false, rl: null },
  ])("reads $name", ({ status, json, graphql, ok, rl }) => {
    expect(classifyAnswer(status, json, graphql)).toEqual({ ok, rateLimit: rl });
  });
});
