/**
 * The end of the pipeline: hands the request to the upstream port (the BullMQ queue in the daemon)
 * and works out what GitHub charged:
 *   REST     1 request, 0 for a 304 or GET /rate_limit (https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api#use-conditional-requests-if-appropriate)
 *   GraphQL  the `rateLimit.cost` GitHub reports for the query — the request is sent with a
 *            `rateLimit { cost ... }` selection under a reserved alias, stripped from the answer
 *            before anyone sees it — else the documented estimate. If GitHub refuses the query
 *            because of the injected text itself, it is sent again as the caller wrote it.
 * GitHub's x-ratelimit-* report rides on the response to the budget layer, which settles the cost
 * and the report together.
 */
import type { DocumentNode } from "graphql";
import { parseRateLimitHeaders } from "../../github/index.js";
import type { UpstreamAnswer, UpstreamPort } from "./ports.js";
import type { GhRequest, GhResponse, Handler } from "./types.js";

/** Injects and strips the broker's rateLimit probe (implemented by broker/batch). */
export interface RateLimitProbe<Token = unknown> {
  inject(
    query: string,
    operationName: string | undefined,
    /** The request's document, parsed once at classification. */
    document?: DocumentNode | undefined,
  ): ({ readonly query: string } & Token) | undefined;
  strip(
    token: { readonly query: string } & Token,
    body: Buffer,
  ): { body: Buffer; cost: number | undefined; refused: boolean };
}

export interface UpstreamHandlerOptions {
  readonly upstream: UpstreamPort;
  readonly probe?: RateLimitProbe | undefined;
}

function graphqlBody(query: string, request: GhRequest): Buffer {
  const payload: Record<string, unknown> = { query, variables: request.graphql?.variables ?? {} };
  if (request.graphql?.operationName) payload.operationName = request.graphql.operationName;
  return Buffer.from(JSON.stringify(payload));
}

export function upstreamHandler(options: UpstreamHandlerOptions): Handler {
  const send = (request: GhRequest, body: Buffer | undefined): Promise<UpstreamAnswer> => {
    const c = request.classification;
    return options.upstream.send({
      requestId: request.id,
      sessionId: request.caller.sessionId,
      method: request.method,
      path: request.path,
      headers: request.headers,
      body,
      kind: c.kind.startsWith("graphql") ? "graphql" : "rest",
      resource: c.resource,
      priority: request.priority,
      idempotent: c.kind === "rest-read" || c.kind === "graphql-query",
      mutation: c.kind === "graphql-mutation" || c.kind === "rest-write",
      contentCreation: c.contentCreation,
      ...(c.contentCreations !== undefined ? { contentCreations: c.contentCreations } : {}),
      free: c.free,
      deadlineAt: request.deadlineAt,
    });
  };

  return async (request: GhRequest): Promise<GhResponse> => {
    const c = request.classification;
    const probe =
      c.kind === "graphql-query" && request.graphql && options.probe
        ? options.probe.inject(request.graphql.query, request.graphql.operationName, c.graphql?.document)
        : undefined;
    let answer = await send(request, probe ? graphqlBody(probe.query, request) : request.body);
    let body = answer.body;
    let reported: number | undefined = answer.graphqlCost;
    if (probe && options.probe) {
      const stripped = options.probe.strip(probe, answer.body);
      if (stripped.refused) {
        answer = await send(request, request.body);
        body = answer.body;
        reported = answer.graphqlCost;
      } else {
        body = stripped.body;
        reported = stripped.cost ?? reported;
      }
    }

    let cost: number;
    if (c.kind.startsWith("graphql")) cost = reported ?? (answer.status >= 400 ? 0 : c.estimatedCost);
    else cost = answer.status === 304 || c.free ? 0 : 1;
    return {
      status: answer.status,
      headers: answer.headers,
      body,
      cache: answer.status === 304 ? "REVALIDATED" : c.cacheable ? "MISS" : "BYPASS",
      cost,
      upstreamCost: cost,
      resource: c.resource,
      waitedMs: answer.queueWaitMs,
      rateLimit: parseRateLimitHeaders(answer.headers),
    };
  };
}
