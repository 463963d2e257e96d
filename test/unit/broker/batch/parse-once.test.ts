/**
 * A GraphQL query is parsed once per request (issue 15): classification parses it (the analyzer,
 * broker/cache) and the document rides on the request; batching and the `rateLimit` injection use
 * that document instead of parsing the text again, and fall back to parsing only when the document
 * was not parsed from the very text they are given.
 */
import { type DocumentNode, parse } from "graphql";
import { describe, expect, it } from "vitest";
import { injectRateLimit, prepareMember } from "../../../../broker/batch/index.js";
import { loadGitHubSchema } from "../../../../github/index.js";

const schema = loadGitHubSchema();
const QUERY = `query PullRequestByNumber($owner: String!, $repo: String!, $pr_number: Int!) {
  repository(owner: $owner, name: $repo) { pullRequest(number: $pr_number) { number title } }
}`;
const VARIABLES = { owner: "o", repo: "r", pr_number: 1 };

/** The same document, counting how often its definitions are read (a parse would not read them). */
function watched(document: DocumentNode): { document: DocumentNode; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(document, {
    get(target, property, receiver) {
      if (property === "definitions") reads++;
      return Reflect.get(target, property, receiver);
    },
  });
  return { document: proxy, reads: () => reads };
}

describe("one parse per GraphQL request", () => {
  it("the rateLimit injection uses the request's document and gives the same result", () => {
    const given = watched(parse(QUERY));
    const withDocument = injectRateLimit(QUERY, { document: given.document });
    expect(given.reads()).toBeGreaterThan(0);
    expect(withDocument).toEqual(injectRateLimit(QUERY));
  });

  it("the injection ignores a document parsed from another text", () => {
    const other = watched(parse("query { viewer { login } }"));
    const injected = injectRateLimit(QUERY, { document: other.document });
    expect(other.reads()).toBe(0);
    expect(injected).toEqual(injectRateLimit(QUERY));
  });

  it("a batch member uses the request's document and is prepared as from the text", () => {
    const given = watched(parse(QUERY));
    const member = prepareMember(
      { id: "m", query: QUERY, variables: VARIABLES, document: given.document },
      { schema },
    );
    expect(given.reads()).toBeGreaterThan(0);
    const fromText = prepareMember({ id: "m", query: QUERY, variables: VARIABLES }, { schema });
    expect(member.eligible).toBe(true);
    expect({ ...member, document: undefined, plan: undefined }).toEqual({
      ...fromText,
      document: undefined,
      plan: undefined,
    });
  });

  it("a batch member ignores a document parsed from another text", () => {
    const other = watched(parse("query { viewer { login } }"));
    const member = prepareMember(
      { id: "m", query: QUERY, variables: VARIABLES, document: other.document },
      { schema },
    );
    expect(other.reads()).toBe(0);
    expect(member.eligible).toBe(true);
  });
});
