/**
 * A small counting stand-in for GitHub's GraphQL endpoint, for scheduler tests until github-sim
 * exists: it parses and validates like GitHub (github/ validateGitHubDocument), refuses what
 * GitHub's cost rules refuse, charges computeQueryCost points per query, answers `rateLimit` with
 * that real cost, and executes the rest with the deterministic world. Every call is recorded, so
 * tests assert exact upstream counts. `override` lets a test replace the reply to a request.
 */
import { type GraphQLSchema, parse } from "graphql";
import type { UpstreamGraphQLRequest, UpstreamReply } from "../../../../../broker/batch/index.js";
import { computeQueryCost, validateGitHubDocument } from "../../../../../github/index.js";
import { executeDeterministic } from "./deterministic-executor.js";

export interface FakeGitHubOptions {
  readonly schema: GraphQLSchema;
  /** Return a reply to use instead of executing, or undefined to execute normally. */
  readonly override?:
    | ((request: UpstreamGraphQLRequest, call: number) => UpstreamReply | undefined)
    | undefined;
}

export interface FakeGitHub {
  readonly send: (request: UpstreamGraphQLRequest) => Promise<UpstreamReply>;
  readonly calls: UpstreamGraphQLRequest[];
  /** Points charged so far (executed queries only). */
  points(): number;
}

const HEADERS = { "content-type": "application/json; charset=utf-8", "x-ratelimit-resource": "graphql" };

function reply(body: unknown, status = 200): UpstreamReply {
  return { status, headers: { ...HEADERS, "content-length": "0", etag: '"x"' }, body: JSON.stringify(body) };
}

export function createFakeGitHub(options: FakeGitHubOptions): FakeGitHub {
  const calls: UpstreamGraphQLRequest[] = [];
  let points = 0;
  const send = async (request: UpstreamGraphQLRequest): Promise<UpstreamReply> => {
    calls.push(request);
    const overridden = options.override?.(request, calls.length);
    if (overridden) return overridden;
    let document: ReturnType<typeof parse>;
    try {
      document = parse(request.query);
    } catch (error) {
      return reply({ errors: [{ message: String(error) }] });
    }
    const invalid = validateGitHubDocument(options.schema, document);
    if (invalid.length > 0) return reply({ errors: invalid.map((e) => e.toJSON()) });
    const variables = (request.variables ?? {}) as Record<string, unknown>;
    const cost = computeQueryCost({
      schema: options.schema,
      document,
      operationName: request.operationName,
      variables,
    });
    if (cost.errors.length > 0) return reply({ errors: cost.errors });
    points += cost.cost;
    const body = await executeDeterministic(options.schema, {
      query: document,
      variables,
      operationName: request.operationName,
      world: {
        rateLimit: { cost: cost.cost, nodeCount: cost.nodeCount, limit: 5000, remaining: 5000 - points },
      },
    });
    return reply(body);
  };
  return { send, calls, points: () => points };
}
