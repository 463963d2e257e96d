/**
 * planMember answers every "cannot merge" as a typed refusal, from any depth of the walk (nested
 * fields, fragments, fragments of fragments), never as an exception.
 */
import { parse } from "graphql";
import { describe, expect, it } from "vitest";
import { planMember } from "../../../../broker/batch/core/member-plan.js";

describe("planMember", () => {
  it.each([
    {
      name: "rateLimit inside a fragment spread at the root",
      reason: "selects-rate-limit",
      query:
        "query { ...A } fragment A on Query { viewer { ...B } } fragment B on User { login } fragment C on Query { rateLimit { cost } } query Q { ...C }",
      operationName: "Q",
    },
    {
      name: "introspection below a field",
      reason: "introspection",
      query: 'query { viewer { __type(name: "User") { name } } }',
    },
    {
      name: "a fragment spreading itself",
      reason: "validation-error",
      query: "query { viewer { ...A } } fragment A on User { login ...A }",
    },
    { name: "an unknown fragment", reason: "validation-error", query: "query { viewer { ...Missing } }" },
    {
      name: "a fragment used at the root and nested",
      reason: "root-fragment-reuse",
      query: "query { ...A viewer { ...A } } fragment A on Query { viewer { login } }",
    },
  ])("refuses $name with reason $reason", ({ query, reason, operationName }) => {
    const result = planMember(parse(query), operationName);
    expect(result).toMatchObject({ ok: false, reason });
  });

  it("refuses a document parsed without locations as a parse error", () => {
    const result = planMember(parse("query { viewer { login } }", { noLocation: true }));
    expect(result).toMatchObject({ ok: false, reason: "parse-error" });
  });

  it("plans a mergeable query", () => {
    const result = planMember(
      parse(
        'query($n: Int!) { viewer { login } repository(owner: "o", name: "r") { pullRequest(number: $n) { title } } }',
      ),
    );
    expect(result.ok).toBe(true);
  });
});
