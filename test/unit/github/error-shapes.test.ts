import { describe, expect, it } from "vitest";
import {
  graphqlRateLimitedBody,
  isSecondaryRateLimitMessage,
  primaryRateLimitMessage,
  restErrorBody,
  secondaryRateLimitBody,
} from "../../../github/index.js";

describe("GitHub error shapes", () => {
  it("words a spent primary budget as gh prints it", () => {
    expect(primaryRateLimitMessage(1)).toBe("API rate limit exceeded for user ID 1.");
    expect(graphqlRateLimitedBody(7)).toEqual({
      errors: [
        {
          type: "RATE_LIMITED",
          code: "graphql_rate_limit",
          message: "API rate limit exceeded for user ID 7.",
        },
      ],
    });
  });

  it("words a secondary limit so clients recognise it", () => {
    const body = secondaryRateLimitBody("ABCD:1234");
    expect(isSecondaryRateLimitMessage(body.message)).toBe(true);
    expect(body.message).toMatch(/^You have exceeded a secondary rate limit\. .*ABCD:1234\.$/);
    expect(isSecondaryRateLimitMessage("API rate limit exceeded for user ID 1.")).toBe(false);
  });

  it("builds REST error bodies with a documentation URL", () => {
    expect(restErrorBody("Not Found", { status: 404 })).toEqual({
      message: "Not Found",
      documentation_url: "https://docs.github.com/rest",
      status: "404",
    });
  });
});
