/**
 * The pipeline's RateLimitProbe, built on broker/batch's injection: every forwarded GraphQL query
 * carries `rateLimit { cost ... }` under a reserved alias, so the broker learns what GitHub really
 * charged for it even when several brokers' answers interleave in GitHub's headers.
 */
import { injectRateLimit, type RateLimitInjection, stripRateLimit } from "../batch/index.js";
import type { RateLimitProbe } from "../pipeline/upstream-handler.js";

export function rateLimitProbe(): RateLimitProbe<RateLimitInjection> {
  return {
    inject: (query, operationName, document) => injectRateLimit(query, { operationName, document }),
    strip: (injection, body) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString("utf8"));
      } catch {
        return { body, cost: undefined, refused: false };
      }
      const stripped = stripRateLimit(injection, parsed);
      if (stripped.injectionRefused) return { body, cost: undefined, refused: true };
      return {
        body: Buffer.from(JSON.stringify(stripped.body)),
        cost: stripped.rateLimit?.cost,
        refused: false,
      };
    },
  };
}
