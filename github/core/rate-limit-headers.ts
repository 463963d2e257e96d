/**
 * GitHub's rate-limit headers (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#checking-the-status-of-your-rate-limit):
 * x-ratelimit-limit / -remaining / -used / -reset (epoch seconds) / -resource. Every answer
 * carries them, so they are the authoritative view of the global budget.
 */
export type RateLimitResource = "core" | "graphql" | "search" | "code_search" | (string & {});

export interface RateLimitSnapshot {
  readonly resource: RateLimitResource;
  readonly limit: number;
  readonly remaining: number;
  readonly used: number;
  /** Epoch seconds at which the window resets. */
  readonly reset: number;
  /** When the snapshot is one session's view: GitHub's limit for the whole window. */
  readonly windowLimit?: number;
}

type HeaderBag = Readonly<Record<string, string | readonly string[] | undefined>>;

function header(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : (value as string | undefined);
}

export function parseRateLimitHeaders(headers: HeaderBag): RateLimitSnapshot | undefined {
  const limit = Number(header(headers, "x-ratelimit-limit"));
  const remaining = Number(header(headers, "x-ratelimit-remaining"));
  const reset = Number(header(headers, "x-ratelimit-reset"));
  if (!Number.isFinite(limit) || !Number.isFinite(remaining) || !Number.isFinite(reset)) return undefined;
  const usedHeader = Number(header(headers, "x-ratelimit-used"));
  return {
    resource: header(headers, "x-ratelimit-resource") ?? "core",
    limit,
    remaining,
    used: Number.isFinite(usedHeader) ? usedHeader : limit - remaining,
    reset,
  };
}

export function rateLimitHeaders(snapshot: RateLimitSnapshot): Record<string, string> {
  return {
    "x-ratelimit-limit": String(snapshot.limit),
    "x-ratelimit-remaining": String(snapshot.remaining),
    "x-ratelimit-reset": String(snapshot.reset),
    "x-ratelimit-used": String(snapshot.used),
    "x-ratelimit-resource": snapshot.resource,
  };
}

/** Which primary bucket a REST path draws on. `/rate_limit` is free and reported as core. */
export function restResourceForPath(path: string): RateLimitResource {
  const pathname = path.split("?")[0] ?? path;
  if (pathname.startsWith("/search/code")) return "code_search";
  if (pathname.startsWith("/search/")) return "search";
  return "core";
}

export function isFreeRestPath(path: string): boolean {
  return (path.split("?")[0] ?? path) === "/rate_limit";
}
