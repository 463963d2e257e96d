import { parse } from "graphql";
import { describe, expect, it } from "vitest";
import { injectRateLimit, RATE_LIMIT_ALIAS, stripRateLimit } from "../../../../broker/batch/index.js";
import { loadGitHubSchema, validateGitHubDocument } from "../../../../github/index.js";
import { executeDeterministic, normalizeJson } from "./support/deterministic-executor.js";

const schema = loadGitHubSchema();

describe("injectRateLimit / stripRateLimit", () => {
  describe("when the query is a query", () => {
    it("maps errors located after the insertion on the same line back to the original columns", async () => {
      const query =
        'query { repository(owner: "o", name: "r") { ...F } } fragment F on Repository { pullRequest(number: 977) { number } }';
      const injection = injectRateLimit(query);
      expect(injection).toBeDefined();
      if (!injection) return;
      expect(validateGitHubDocument(schema, parse(injection.query))).toEqual([]);
      const alone = await executeDeterministic(schema, { query });
      const injected = await executeDeterministic(schema, { query: injection.query });
      expect((injected.errors as { locations: unknown }[])[0]?.locations).not.toEqual(
        (alone.errors as { locations: unknown }[])[0]?.locations,
      );
      const stripped = stripRateLimit(injection, injected);
      expect(normalizeJson(stripped.body)).toBe(normalizeJson(alone));
      expect(stripped.rateLimit).toEqual(expect.objectContaining({ cost: expect.any(Number) }));
    });

    it("injects into the named operation of several", () => {
      const query =
        'mutation M { addStar(input: {starrableId: "x"}) { clientMutationId } } query Q { viewer { login } }';
      const injection = injectRateLimit(query, { operationName: "Q" });
      expect(injection?.query).toMatch(/query Q \{ viewer \{ login \} +aobRateLimit: rateLimit/);
      expect(injectRateLimit(query, { operationName: "M" })).toBeUndefined();
      expect(injectRateLimit(query)).toBeUndefined();
    });

    it("does not glue the alias onto a preceding name", () => {
      expect(injectRateLimit("{viewer{login}}")?.query).toBe(
        `{viewer{login} ${RATE_LIMIT_ALIAS}: rateLimit { cost remaining resetAt limit used nodeCount } }`,
      );
    });
  });

  describe("when the query cannot carry it", () => {
    it.each([
      { name: "a mutation", query: 'mutation { addStar(input: {starrableId: "x"}) { clientMutationId } }' },
      { name: "a subscription", query: "subscription { viewer { login } }" },
      { name: "text that does not parse", query: "{ viewer { login }" },
      {
        name: "a query already using the reserved alias",
        query: `{ ${RATE_LIMIT_ALIAS}: viewer { login } }`,
      },
    ])("leaves $name untouched", ({ query }) => {
      expect(injectRateLimit(query)).toBeUndefined();
    });
  });

  describe("when stripping", () => {
    const injection = injectRateLimit("{ viewer { login } }");
    if (!injection) throw new Error("expected an injection");

    it("removes errors on the injected field and leaves no empty errors list", () => {
      const stripped = stripRateLimit(injection, {
        data: { viewer: { login: "x" }, [RATE_LIMIT_ALIAS]: null },
        errors: [{ message: "no", path: [RATE_LIMIT_ALIAS] }],
      });
      expect(stripped.body).toEqual({ data: { viewer: { login: "x" } } });
      expect(stripped.rateLimit).toBeUndefined();
    });

    it("reports a refusal caused by the injected text itself", () => {
      const column = injection.insertedAt + 3;
      const stripped = stripRateLimit(injection, {
        errors: [{ message: "Field 'rateLimit' doesn't exist", locations: [{ line: 1, column }] }],
      });
      expect(stripped.injectionRefused).toBe(true);
    });

    it("passes through bodies that are not objects and data that is null", () => {
      expect(stripRateLimit(injection, "x").body).toBe("x");
      expect(
        stripRateLimit(injection, { data: null, errors: [{ message: "m", path: ["viewer"] }] }).body,
      ).toEqual({
        data: null,
        errors: [{ message: "m", path: ["viewer"] }],
      });
    });
  });
});
