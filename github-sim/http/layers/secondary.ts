/**
 * GitHub's point-based secondary limits (REST points per minute per endpoint, GraphQL points per
 * minute, content creation per minute and per hour), checked once the request is classified: a
 * refusal is a 403 whose message contains "secondary rate limit", with `retry-after` in seconds.
 */
import { secondaryRateLimitBody } from "../../../github/index.js";
import type { SimState } from "../../sim-state.js";
import { jsonResponse } from "../respond.js";
import type { SimLayer } from "../types.js";

export function secondaryLayer(state: SimState): SimLayer {
  return (next) => (request) => {
    const c = request.classification;
    if (!c) return next(request);
    const verdict = state.secondary.admit(
      {
        kind: c.kind,
        endpoint: c.operation,
        points: c.secondaryPoints,
        createsContent: c.graphql?.createsContent ?? c.rest?.createsContent ?? false,
      },
      state.now(),
    );
    if (verdict.ok) return next(request);
    return Promise.resolve(
      jsonResponse(403, secondaryRateLimitBody(request.id), {
        headers: { "retry-after": String(verdict.retryAfterS) },
        resource: c.kind === "graphql" ? "graphql" : "core",
        outcome: "secondary_limited",
      }),
    );
  };
}
