import { describe, expect, it } from "vitest";
import { errorReply } from "../../../broker/gateway/error-reply.js";
import { AoError } from "../../../common/index.js";

const exhausted = () =>
  new AoError("AO_ERR_BUDGET_EXHAUSTED", "budget for graphql spent", {
    httpStatus: 403,
    data: { resource: "graphql", reset: 2_000_000_000, waitedMs: 5_000 },
  });

describe("errorReply", () => {
  describe("when the budget stayed spent past the caller's deadline", () => {
    it("answers a GraphQL caller as GitHub does: 200 with a RATE_LIMITED error", () => {
      const reply = errorReply(exhausted(), { graphql: true });
      expect(reply.status).toBe(200);
      expect(reply.headers["x-ratelimit-remaining"]).toBe("0");
      expect(reply.headers["x-ratelimit-reset"]).toBe("2000000000");
      const body = JSON.parse(reply.body.toString()) as { errors: { type: string; message: string }[] };
      expect(body.errors[0]?.type).toBe("RATE_LIMITED");
      expect(body.errors[0]?.message).toMatch(
        /^API rate limit exceeded: ao-broker's shared graphql budget is spent after waiting 5s; it resets at 2033-/,
      );
    });

    it("answers a REST caller with GitHub's 403 rate-limit body", () => {
      const reply = errorReply(exhausted(), { graphql: false });
      expect(reply.status).toBe(403);
      expect(JSON.parse(reply.body.toString())).toMatchObject({
        message: expect.stringMatching(/^API rate limit exceeded/),
        status: "403",
      });
    });
  });

  describe("when GitHub's secondary limits would let a write go only after its deadline", () => {
    it("answers as GitHub's secondary limit does: 429 with retry-after and the reason", () => {
      const err = new AoError(
        "AO_ERR_UPSTREAM_PACED",
        "You have exceeded a secondary rate limit: ao-broker paces GitHub's content-creating requests per hour (at most 450); retry after 1200s.",
        { httpStatus: 429, data: { limit: "content-creation-per-hour", retryAfterSeconds: 1200 } },
      );
      for (const graphql of [true, false]) {
        const reply = errorReply(err, { graphql });
        expect(reply.status).toBe(429);
        expect(reply.headers["retry-after"]).toBe("1200");
        expect(JSON.parse(reply.body.toString()).message).toMatch(/secondary rate limit.*per hour/);
      }
    });
  });

  describe("when the broker paces the window or holds it for other sessions", () => {
    const paced = (reason: string) =>
      new AoError("AO_ERR_BUDGET_EXHAUSTED", "paced", {
        httpStatus: 429,
        data: { resource: "core", reset: 2_000_000_000, retryAfter: 7, reason, predicted: true, waitedMs: 0 },
      });

    it.each(["pace", "fair-share"])(
      "answers %s as GitHub's secondary limit: 429 with retry-after",
      (reason) => {
        const reply = errorReply(paced(reason), { graphql: false });
        expect(reply.status).toBe(429);
        expect(reply.headers["retry-after"]).toBe("7");
        // A secondary limit says nothing of the primary bucket, as GitHub's does not.
        expect(reply.headers["x-ratelimit-remaining"]).toBeUndefined();
        expect(JSON.parse(reply.body.toString())).toMatchObject({
          message: expect.stringMatching(/^You have exceeded a secondary rate limit: .* retry after 7s\.$/),
          status: "429",
        });
      },
    );

    it("sends retry-after with a spent window's 403 too", () => {
      const reply = errorReply(
        new AoError("AO_ERR_BUDGET_EXHAUSTED", "spent", {
          httpStatus: 403,
          data: { resource: "core", reset: 2_000_000_000, retryAfter: 1800, reason: "budget" },
        }),
        { graphql: false },
      );
      expect(reply.status).toBe(403);
      expect(reply.headers["retry-after"]).toBe("1800");
      expect(reply.headers["x-ratelimit-remaining"]).toBe("0");
    });
  });

  it("keeps a retry-after hint and the error's own status", () => {
    const reply = errorReply(
      new AoError("AO_ERR_STATE_UNAVAILABLE", "cannot verify", {
        httpStatus: 503,
        data: { retryAfterSeconds: 5 },
      }),
      {
        graphql: false,
      },
    );
    expect(reply.status).toBe(503);
    expect(reply.headers["retry-after"]).toBe("5");
  });

  it("never lets an unknown failure's message out", () => {
    const reply = errorReply(new Error("connect ECONNREFUSED 10.0.0.1:443 token=ghp_secret"), {
      graphql: false,
    });
    expect(reply.status).toBe(502);
    expect(reply.body.toString()).not.toMatch(/ECONNREFUSED|ghp_/);
  });
});
