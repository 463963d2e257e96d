/**
 * The end of the pipeline: hands the request to the upstream port (the BullMQ queue in the daemon),
 * feeds GitHub's rate-limit headers to the budget, and works out what GitHub charged:
 *   REST     1 request, 0 for a 304 or GET /rate_limit (https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api#use-conditional-requests-if-appropriate)
 *   GraphQL  the `rateLimit.cost` GitHub reports for the query — the request is sent with a
 *            `rateLimit { cost }` selection under a reserved alias, stripped from the answer before
 *            anyone sees it — else the documented estimate.
 */
import { parseRateLimitHeaders } from "../../github/index.js";
import type { BudgetPort, UpstreamPort } from "./ports.js";
import type { GhRequest, GhResponse, Handler } from "./types.js";

/** Injects and strips the broker's rateLimit probe; supplied by broker/batch. */
export interface RateLimitProbe {
  inject(query: string): { query: string; alias: string } | undefined;
  /** Removes the probe from an answer body; returns the body GitHub would have sent and the cost. */
  strip(body: Buffer, alias: string): { body: Buffer; cost: number | undefined };
}

export interface UpstreamHandlerOptions {
  readonly upstream: UpstreamPort;
  readonly budget: BudgetPort;
  readonly probe?: RateLimitProbe | undefined;
}

export function upstreamHandler(options: UpstreamHandlerOptions): Handler {
  return async (request: GhRequest): Promise<GhResponse> => {
    const c = request.classification;
    let body = request.body;
    let probeAlias: string | undefined;
    if (c.kind === "graphql-query" && request.graphql && options.probe) {
      const injected = options.probe.inject(request.graphql.query);
      if (injected) {
        probeAlias = injected.alias;
        const payload: Record<string, unknown> = {
          query: injected.query,
          variables: request.graphql.variables,
        };
        if (request.graphql.operationName) payload.operationName = request.graphql.operationName;
        body = Buffer.from(JSON.stringify(payload));
      }
    }
    const answer = await options.upstream.send({
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
      deadlineAt: request.deadlineAt,
    });

    let responseBody = answer.body;
    let cost: number;
    if (c.kind.startsWith("graphql")) {
      let reported: number | undefined;
      if (probeAlias && options.probe) {
        const stripped = options.probe.strip(answer.body, probeAlias);
        responseBody = stripped.body;
        reported = stripped.cost;
      }
      cost = reported ?? (answer.status >= 400 ? 0 : c.estimatedCost);
    } else {
      cost = answer.status === 304 || c.free ? 0 : 1;
    }
    return {
      status: answer.status,
      headers: answer.headers,
      body: responseBody,
      cache: answer.status === 304 ? "REVALIDATED" : c.cacheable ? "MISS" : "BYPASS",
      cost,
      upstreamCost: cost,
      resource: c.resource,
      waitedMs: answer.queueWaitMs,
      rateLimit: parseRateLimitHeaders(answer.headers),
    };
  };
}
