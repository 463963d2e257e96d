import { describe, expect, it } from "vitest";
import { judgeUpstreamReply } from "../../../../broker/batch/index.js";

describe("judgeUpstreamReply", () => {
  it.each([
    { name: "a 200 with data", status: 200, headers: {}, json: { data: { a: 1 } }, verdict: "ok" },
    {
      name: "a 200 with data and errors",
      status: 200,
      headers: {},
      json: { data: {}, errors: [{}] },
      verdict: "ok",
    },
    {
      name: "a 200 with null data",
      status: 200,
      headers: {},
      json: { data: null, errors: [{ path: ["b0_x"] }] },
      verdict: "ok",
    },
    { name: "a 429", status: 429, headers: {}, json: undefined, verdict: "rate-limited" },
    {
      name: "a 403 with retry-after",
      status: 403,
      headers: { "retry-after": "60" },
      json: {},
      verdict: "rate-limited",
    },
    {
      name: "a 403 with nothing remaining",
      status: 403,
      headers: { "x-ratelimit-remaining": "0" },
      json: {},
      verdict: "rate-limited",
    },
    {
      name: "a 200 RATE_LIMITED",
      status: 200,
      headers: {},
      json: { errors: [{ type: "RATE_LIMITED", message: "API rate limit exceeded" }] },
      verdict: "rate-limited",
    },
    { name: "a plain 403", status: 403, headers: {}, json: { message: "Forbidden" }, verdict: "rejected" },
    { name: "a 502", status: 502, headers: {}, json: undefined, verdict: "rejected" },
    {
      name: "a 200 with only errors",
      status: 200,
      headers: {},
      json: { errors: [{ message: "Parse error" }] },
      verdict: "rejected",
    },
    {
      name: "a 200 with mixed errors",
      status: 200,
      headers: {},
      json: { errors: [{ type: "RATE_LIMITED" }, { message: "x" }] },
      verdict: "rejected",
    },
    { name: "a 200 that is not JSON", status: 200, headers: {}, json: undefined, verdict: "rejected" },
  ] as const)("judges $name as $verdict", ({ status, headers, json, verdict }) => {
    expect(judgeUpstreamReply({ status, headers, json })).toBe(verdict);
  });
});
