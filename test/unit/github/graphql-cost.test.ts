import { parse } from "graphql";
import { describe, expect, it } from "vitest";
import {
  computeQueryCost,
  loadGitHubSchema,
  pointsForRequests,
  validateGitHubDocument,
} from "../../../github/index.js";
import { capturedGraphQLRequests } from "../../support/traffic.js";

const schema = loadGitHubSchema();
const cost = (query: string, variables: Record<string, unknown> = {}) =>
  computeQueryCost({ schema, document: parse(query), variables });

describe("GraphQL cost", () => {
  describe("the documented worked examples", () => {
    it("charges 51 points for 5,101 requests (repositories → issues → labels)", () => {
      const result = cost(`query {
        viewer {
          login
          repositories(first: 100) {
            edges { node { name
              issues(first: 50) {
                edges { node { title
                  labels(first: 60) { edges { node { name } } }
                } }
              }
            } }
          }
        }
      }`);
      expect(result.requests).toBe(5101);
      expect(result.cost).toBe(51);
    });

    it("counts 550 nodes for the simple node-limit example", () => {
      const result = cost(`query { viewer { repositories(first: 50) { edges { repository: node { name
        issues(first: 10) { totalCount edges { node { title bodyHTML } } } } } } } }`);
      expect(result.nodeCount).toBe(550);
      expect(result.errors).toEqual([]);
    });

    it("counts 22,060 nodes for the complex node-limit example", () => {
      const result = cost(`query { viewer {
        repositories(first: 50) { edges { repository: node { name
          pullRequests(first: 20) { edges { pullRequest: node { title
            comments(first: 10) { edges { comment: node { bodyHTML } } } } } }
          issues(first: 20) { totalCount edges { issue: node { title bodyHTML
            comments(first: 10) { edges { comment: node { bodyHTML } } } } } }
        } } }
        followers(first: 10) { edges { follower: node { login } } }
      } }`);
      expect(result.nodeCount).toBe(22060);
    });
  });

  it.each([
    { requests: 0, points: 1 },
    { requests: 49, points: 1 },
    { requests: 150, points: 2 },
    { requests: 249, points: 2 },
    { requests: 5101, points: 51 },
  ])("rounds $requests requests to $points point(s), minimum 1", ({ requests, points }) => {
    expect(pointsForRequests(requests)).toBe(points);
  });

  describe("every GraphQL request gh 2.23 was captured sending", () => {
    const captured = capturedGraphQLRequests();
    it("has a corpus to check", () => {
      expect(captured.length).toBeGreaterThanOrEqual(60);
    });
    it.each(captured.map((c) => ({ ...c, name: `${c.file}#${c.index} ${c.operationName}` })))(
      "$name costs what the capture documents",
      ({ query, variables, requests, cost: points, nodeCount }) => {
        const result = cost(query, variables);
        expect({ requests: result.requests, cost: result.cost, nodeCount: result.nodeCount }).toEqual({
          requests,
          cost: points,
          nodeCount,
        });
      },
    );
    it.each(captured.map((c) => ({ ...c, name: `${c.file}#${c.index} ${c.operationName}` })))(
      "$name passes GitHub's validation",
      ({ query }) => {
        expect(validateGitHubDocument(schema, parse(query)).map((e) => e.message)).toEqual([]);
      },
    );
  });

  describe("pagination rules", () => {
    it("refuses a connection that asks for nodes without first or last, in GitHub's words", () => {
      const result = cost(`query { repository(owner: "o", name: "r") { issues { nodes { title } } } }`);
      expect(result.errors).toEqual([
        expect.objectContaining({
          type: "MISSING_PAGINATION_BOUNDARIES",
          message: "You must provide a `first` or `last` value to properly paginate the `issues` connection.",
          path: ["repository", "issues"],
        }),
      ]);
    });

    it("accepts a connection without first/last when only totalCount is asked", () => {
      const result = cost(`query { repository(owner: "o", name: "r") { issues { totalCount } } }`);
      expect(result.errors).toEqual([]);
      expect(result.requests).toBe(0);
    });

    it("refuses pages over 100, reading the page size from variables", () => {
      const result = cost(
        `query($n: Int!) { repository(owner: "o", name: "r") { issues(first: $n) { nodes { title } } } }`,
        {
          n: 101,
        },
      );
      expect(result.errors[0]?.message).toBe(
        "Requesting 101 records on the `issues` connection exceeds the `first` limit of 100 records.",
      );
    });

    it("refuses queries over 500,000 nodes", () => {
      const result = cost(`query { viewer { repositories(first: 100) { nodes {
        issues(first: 100) { nodes { comments(first: 100) { nodes { body } } } } } } } }`);
      expect(result.nodeCount).toBe(100 + 100 * 100 + 100 * 100 * 100);
      expect(result.errors.map((e) => e.type)).toEqual(["MAX_NODE_LIMIT_EXCEEDED"]);
      expect(result.errors[0]?.message).toBe(
        "This query requests up to 1,010,100 possible nodes which exceeds the maximum limit of 500,000.",
      );
    });
  });

  describe("validation", () => {
    it("still rejects unknown fields", () => {
      const errors = validateGitHubDocument(schema, parse(`query { viewer { nope } }`));
      expect(errors).toHaveLength(1);
    });
    it("still rejects one alias over two different fields", () => {
      const errors = validateGitHubDocument(schema, parse(`query { viewer { x: login x: name } }`));
      expect(errors.length).toBeGreaterThan(0);
    });
  });
});
