import { parse } from "graphql";
import { describe, expect, it } from "vitest";
import { loadGitHubSchema, validateGitHubDocument } from "../../../github/index.js";
import { parseErrorToGitHub, validationErrorsToGitHub } from "../../../github-sim/graphql/github-errors.js";

const schema = loadGitHubSchema();
const errorsFor = (query: string) => {
  const document = parse(query);
  return validationErrorsToGitHub(document, validateGitHubDocument(schema, document));
};

describe("GraphQL errors in GitHub's words", () => {
  it("phrases an unknown field like graphql-ruby, with code and path", () => {
    expect(errorsFor("query Q { viewer { nope } }")).toEqual([
      {
        path: ["query Q", "viewer", "nope"],
        extensions: { code: "undefinedField", typeName: "User", fieldName: "nope" },
        locations: [{ line: 1, column: 20 }],
        message: "Field 'nope' doesn't exist on type 'User'",
      },
    ]);
  });

  it.each([
    {
      name: "unknown argument",
      q: "{ viewer { login(x: 1) } }",
      message: "Field 'login' doesn't accept argument 'x'",
    },
    {
      name: "missing argument",
      q: '{ repository(owner: "a") { id } }',
      message: "Field 'repository' is missing required arguments: name",
    },
    {
      name: "missing selection",
      q: "{ viewer }",
      message:
        "Field must have selections (field 'viewer' returns User but has no selections. Did you mean 'viewer { ... }'?)",
    },
    {
      name: "unused variable",
      q: "query Q($a: Int) { viewer { login } }",
      message: "Variable $a is declared by Q but not used",
    },
    {
      name: "unused fragment",
      q: "fragment F on User { login } { viewer { login } }",
      message: "Fragment F was defined, but not used",
    },
  ])("rewrites $name", ({ q, message }) => {
    expect(errorsFor(q).map((e) => e.message)).toContain(message);
  });

  it("phrases parse errors like GitHub", () => {
    let error: unknown;
    try {
      parse("{ viewer { login }");
    } catch (e) {
      error = e;
    }
    expect(parseErrorToGitHub(error as never).message).toBe("Unexpected end of document");
    try {
      parse("{ viewer { login } } }");
    } catch (e) {
      error = e;
    }
    expect(parseErrorToGitHub(error as never)).toEqual({
      message: 'Parse error on "}" (RCURLY) at [1, 22]',
      locations: [{ line: 1, column: 22 }],
    });
  });
});
