/**
 * The x-ratelimit-* story the gateway tells every session (docs/decisions/0010-ao-end-to-end.md):
 * the numbers are GitHub's window as this session sees it.
 *
 * - `x-ratelimit-limit`: GitHub's limit for the resource's window (5000 REST requests, 5000
 *   GraphQL points, ...). The same on every answer of the window, whatever the other sessions do.
 * - `x-ratelimit-remaining`: what this session may still spend now — its fair share left, never
 *   more than GitHub has left after reservations — from the budget's view (budget/core/
 *   session-view.ts). On an answer the broker served it is at least 1 (the session was admitted; a
 *   0 would tell a client such as octokit's throttling plugin to stop until the reset); only a
 *   refusal says 0.
 * - `x-ratelimit-used` = limit − remaining: everything this session cannot spend — its own spend,
 *   other sessions' spend and shares, reservations. used + remaining = limit on every answer.
 * - `GET /rate_limit`: the body's buckets (`resources.*`, `rate`) are rewritten to the same numbers
 *   the headers carry, so the two never disagree.
 *
 * Also: an answer without GitHub's `x-github-request-id` (a cache hit, a 304 the broker made from a
 * stored answer) gets the broker's own request id there, as GitHub always sends one.
 */
import type { RateLimitSnapshot } from "../../github/index.js";

export interface CoherentView {
  readonly limit: number;
  readonly remaining: number;
  readonly used: number;
  readonly reset: number;
  readonly resource: string;
}

export function coherentView(view: RateLimitSnapshot, served: boolean): CoherentView {
  const limit = Math.max(1, Math.floor(view.windowLimit ?? view.limit));
  const floor = served ? 1 : 0;
  const remaining = Math.min(limit, Math.max(floor, Math.floor(view.remaining)));
  return { limit, remaining, used: limit - remaining, reset: view.reset, resource: view.resource };
}

export function rateHeaders(view: CoherentView): Record<string, string> {
  return {
    "x-ratelimit-limit": String(view.limit),
    "x-ratelimit-remaining": String(view.remaining),
    "x-ratelimit-reset": String(view.reset),
    "x-ratelimit-used": String(view.used),
    "x-ratelimit-resource": view.resource,
  };
}

export function isRateLimitPath(path: string): boolean {
  return (path.split("?")[0] ?? path) === "/rate_limit";
}

/**
 * GET /rate_limit's body with every bucket replaced by the session's coherent view of it; the body
 * unchanged when it is not the JSON GitHub sends.
 */
export function rewriteRateLimitBody(
  body: Buffer,
  viewOf: (resource: string) => CoherentView | undefined,
): Buffer {
  let parsed: { resources?: Record<string, unknown>; rate?: unknown };
  try {
    parsed = JSON.parse(body.toString("utf8")) as typeof parsed;
  } catch {
    return body;
  }
  if (!parsed || typeof parsed !== "object" || !parsed.resources || typeof parsed.resources !== "object")
    return body;
  const bucket = (resource: string, old: unknown) => {
    const view = viewOf(resource);
    if (!view) return old;
    return {
      ...(old as object),
      limit: view.limit,
      used: view.used,
      remaining: view.remaining,
      reset: view.reset,
    };
  };
  const resources: Record<string, unknown> = {};
  for (const [name, old] of Object.entries(parsed.resources)) resources[name] = bucket(name, old);
  const out: Record<string, unknown> = { ...parsed, resources };
  if (parsed.rate !== undefined) out.rate = bucket("core", parsed.rate);
  return Buffer.from(JSON.stringify(out));
}

/** The id on an answer GitHub did not send one for. */
export function brokerRequestId(requestId: string): string {
  return `AOB-${requestId}`;
}
