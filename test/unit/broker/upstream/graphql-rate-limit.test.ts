import { describe, expect, it } from "vitest";
import { extractGraphQLRateLimit } from "../../../../broker/upstream/core/graphql-rate-limit.js";

const body = (o: unknown) => Buffer.from(JSON.stringify(o));

describe("extractGraphQLRateLimit", () => {
  it("reads the injected rateLimit object", () => {
    const got = extractGraphQLRateLimit(
      body({
        data: {
          repository: { id: 1 },
          aobRateLimit: {
            cost: 3,
            limit: 5000,
            remaining: 4990,
            used: 10,
            resetAt: "2026-01-01T00:00:00Z",
          },
        },
      }),
      "aobRateLimit",
    );
    expect(got).toEqual({
      cost: 3,
      limit: 5000,
      remaining: 4990,
      used: 10,
      resetAt: Date.parse("2026-01-01T00:00:00Z"),
    });
  });

  it.each([
    { name: "no alias in the answer", b: body({ data: { repository: {} } }) },
    { name: "an error answer", b: body({ errors: [{ message: "boom" }], data: null }) },
    { name: "not JSON", b: Buffer.from("<html>aobRateLimit</html>") },
    { name: "an empty body", b: Buffer.alloc(0) },
  ])("gives nothing for $name", ({ b }) => {
    expect(extractGraphQLRateLimit(b, "aobRateLimit")).toBeUndefined();
  });
});
