import { describe, expect, it } from "vitest";
import {
  backoffDelay,
  classifyResponse,
  parseRetryAfter,
  shouldRetry,
} from "../../../../broker/upstream/core/retry-policy.js";

const T = 1_700_000_000_000;
const base = { bodyText: "", idempotent: true, now: T, secondaryPauseMs: 60_000 };

describe("classifyResponse", () => {
  it.each([
    {
      name: "a 403 with retry-after is a secondary limit for that long",
      status: 403,
      headers: { "retry-after": "7" },
      want: { kind: "secondary-limit", pauseMs: 7000 },
    },
    {
      name: "a 429 with retry-after is a secondary limit",
      status: 429,
      headers: { "retry-after": "1" },
      want: { kind: "secondary-limit", pauseMs: 1000 },
    },
    {
      name: "a secondary-limit message without retry-after pauses a minute",
      status: 403,
      headers: {},
      bodyText: '{"message":"You have exceeded a secondary rate limit. Please wait a few minutes."}',
      want: { kind: "secondary-limit", pauseMs: 60_000 },
    },
    {
      name: "a 403 with remaining 0 is a spent primary bucket until its reset",
      status: 403,
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(T / 1000 + 600) },
      bodyText: '{"message":"API rate limit exceeded for user ID 1."}',
      want: { kind: "primary-exhausted", resetAt: T + 600_000 },
    },
    {
      name: "a GraphQL RATE_LIMITED answer is a spent primary bucket",
      status: 200,
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(T / 1000 + 60) },
      bodyText: '{"errors":[{"type":"RATE_LIMITED","message":"API rate limit exceeded"}]}',
      want: { kind: "primary-exhausted", resetAt: T + 60_000 },
    },
    {
      name: "a permission 403 is GitHub's final answer",
      status: 403,
      headers: { "x-ratelimit-remaining": "4000" },
      bodyText: '{"message":"Resource not accessible by personal access token"}',
      want: { kind: "final" },
    },
    { name: "a 502 on a read is retried", status: 502, headers: {}, want: { kind: "retry" } },
    {
      name: "a 500 on a write is final",
      status: 500,
      headers: {},
      idempotent: false,
      want: { kind: "final" },
    },
    { name: "a 501 is never retried", status: 501, headers: {}, want: { kind: "final" } },
    { name: "a 404 is final", status: 404, headers: {}, want: { kind: "final" } },
    {
      name: "a success that spent the last point is final but marks the bucket",
      status: 200,
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(T / 1000 + 5) },
      bodyText: '{"data":{}}',
      want: { kind: "final", exhausted: { resetAt: T + 5000 } },
    },
  ])("$name", ({ status, headers, bodyText, idempotent, want }) => {
    expect(
      classifyResponse({
        ...base,
        status,
        headers,
        bodyText: bodyText ?? "",
        idempotent: idempotent ?? true,
      }),
    ).toEqual(want);
  });
});

describe("parseRetryAfter", () => {
  it.each([
    { name: "delta seconds", value: "30", want: 30_000 },
    { name: "zero", value: "0", want: 0 },
    { name: "an HTTP date", value: new Date(T + 5_000).toUTCString(), want: 5_000 },
    { name: "a date in the past is now", value: new Date(T - 5_000).toUTCString(), want: 0 },
    { name: "garbage is ignored", value: "soon", want: undefined },
    { name: "absent", value: undefined, want: undefined },
  ])("$name", ({ value, want }) => {
    expect(parseRetryAfter(value, T)).toBe(want);
  });
});

describe("backoffDelay", () => {
  it.each([
    { name: "first retry with no jitter draw waits half the base", attempt: 1, rng: 0, want: 100 },
    { name: "first retry with the largest draw waits the base", attempt: 1, rng: 0.999999, want: 200 },
    { name: "doubles each attempt", attempt: 3, rng: 0, want: 400 },
    { name: "is capped", attempt: 10, rng: 0.999999, want: 1000 },
  ])("$name", ({ attempt, rng, want }) => {
    expect(backoffDelay({ attempt, baseMs: 200, maxMs: 1000, rng: () => rng })).toBe(want);
  });

  it("spreads retries of many callers (jitter)", () => {
    let seed = 1;
    const rng = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const delays = new Set(
      Array.from({ length: 50 }, () => backoffDelay({ attempt: 2, baseMs: 200, maxMs: 5000, rng })),
    );
    expect(delays.size).toBeGreaterThan(30);
    for (const d of delays) expect(d).toBeGreaterThanOrEqual(200);
    for (const d of delays) expect(d).toBeLessThanOrEqual(400);
  });
});

describe("shouldRetry", () => {
  it.each([
    {
      name: "retries while attempts remain",
      attempt: 1,
      maxAttempts: 3,
      delayMs: 100,
      deadlineAt: T + 1000,
      want: true,
    },
    {
      name: "stops at the last attempt",
      attempt: 3,
      maxAttempts: 3,
      delayMs: 100,
      deadlineAt: T + 1000,
      want: false,
    },
    {
      name: "stops when the retry would start after the deadline",
      attempt: 1,
      maxAttempts: 3,
      delayMs: 1000,
      deadlineAt: T + 1000,
      want: false,
    },
  ])("$name", ({ attempt, maxAttempts, delayMs, deadlineAt, want }) => {
    expect(shouldRetry({ attempt, maxAttempts, delayMs, now: T, deadlineAt })).toBe(want);
  });
});
