import { describe, expect, it } from "vitest";
import {
  brokerRequestId,
  coherentView,
  isRateLimitPath,
  rateHeaders,
  rewriteRateLimitBody,
} from "../../../broker/gateway/answer-headers.js";

const view = {
  resource: "core",
  limit: 4500.6,
  remaining: 312.9,
  used: 40,
  reset: 1_700_000_000,
  windowLimit: 5000,
};

describe("the gateway's rate-limit story (decision 0010)", () => {
  it("uses GitHub's window limit, the session's remaining, and used = limit - remaining", () => {
    expect(coherentView(view, true)).toEqual({
      limit: 5000,
      remaining: 312,
      used: 4688,
      reset: 1_700_000_000,
      resource: "core",
    });
    expect(rateHeaders(coherentView(view, true))).toMatchObject({
      "x-ratelimit-limit": "5000",
      "x-ratelimit-used": "4688",
    });
  });

  it("never says remaining 0 on a served answer; a refusal may", () => {
    const spent = { ...view, remaining: 0 };
    expect(coherentView(spent, true)).toMatchObject({ remaining: 1, used: 4999 });
    expect(coherentView(spent, false)).toMatchObject({ remaining: 0, used: 5000 });
    expect(coherentView({ ...view, remaining: 9999 }, true)).toMatchObject({ remaining: 5000, used: 0 });
  });

  it("falls back to the view's own limit when the budget gives no window limit", () => {
    const { windowLimit: _, ...bare } = view;
    expect(coherentView(bare, true).limit).toBe(4500);
  });

  it("rewrites /rate_limit's buckets and rate to the same numbers, keeping other fields", () => {
    const body = Buffer.from(
      JSON.stringify({
        resources: {
          core: { limit: 5000, used: 1, remaining: 4999, reset: 1 },
          graphql: { limit: 5000, used: 0, remaining: 5000, reset: 2 },
        },
        rate: { limit: 5000, used: 1, remaining: 4999, reset: 1, resource: "core" },
      }),
    );
    const out = JSON.parse(
      rewriteRateLimitBody(body, (resource) =>
        resource === "core" ? coherentView(view, true) : undefined,
      ).toString(),
    );
    expect(out.resources.core).toEqual({ limit: 5000, used: 4688, remaining: 312, reset: 1_700_000_000 });
    expect(out.resources.graphql).toEqual({ limit: 5000, used: 0, remaining: 5000, reset: 2 });
    expect(out.rate).toEqual({
      limit: 5000,
      used: 4688,
      remaining: 312,
      reset: 1_700_000_000,
      resource: "core",
    });
  });

  it("leaves a body that is not GitHub's JSON alone", () => {
    const odd = Buffer.from("not json");
    expect(rewriteRateLimitBody(odd, () => coherentView(view, true))).toBe(odd);
    expect(isRateLimitPath("/rate_limit?x=1")).toBe(true);
    expect(isRateLimitPath("/rate_limits")).toBe(false);
    expect(brokerRequestId("abc")).toBe("AOB-abc");
  });
});
