/**
 * LifecyclePorts straight over HTTP to a GitHub-compatible API (github-sim, or api.github.com),
 * with no broker in between: what the lifecycle's integration test and bench/lifecycle.ts use, and
 * a way to run the lifecycle on its own. Conditional GETs carry the lifecycle's own ETags (it keeps
 * them per guard), so a 304 is free here as it is through the broker. `invalidate` and `publish`
 * go to callbacks. GraphQL cost is read from the query's own `rateLimit { cost }`; the budget from
 * the answers' x-ratelimit-* headers (GraphQL and REST core). The token goes into the Authorization header only.
 */
import { parseRateLimitHeaders } from "../../github/index.js";
import type { BudgetSnapshot } from "../core/cadence.js";
import { parseRateLimit } from "../core/enrichment-query.js";
import type { LifecycleEvent } from "../core/lifecycle-event.js";
import type { InvalidateTarget, LifecyclePorts } from "../ports.js";

export interface DirectPortsOptions {
  /** e.g. "http://127.0.0.1:3990" or "https://api.github.com" (no trailing slash). */
  readonly baseUrl: string;
  readonly token: string;
  readonly publish?: (event: LifecycleEvent) => void | Promise<void>;
  readonly invalidate?: (target: InvalidateTarget) => void | Promise<void>;
  /** @defaultValue "ao-broker-lifecycle" */
  readonly userAgent?: string;
}

export interface DirectPortStats {
  graphqlQueries: number;
  graphqlPoints: number;
  restRequests: number;
  restNotModified: number;
}

export function createDirectPorts(
  options: DirectPortsOptions,
): LifecyclePorts & { stats(): DirectPortStats } {
  const base = options.baseUrl.replace(/\/+$/, "");
  const headers = {
    authorization: `token ${options.token}`,
    accept: "application/vnd.github+json",
    "user-agent": options.userAgent ?? "ao-broker-lifecycle",
  };
  const stats: DirectPortStats = { graphqlQueries: 0, graphqlPoints: 0, restRequests: 0, restNotModified: 0 };
  const budget: { graphql?: BudgetSnapshot; core?: BudgetSnapshot } = {};
  const learn = (headers: Headers) => {
    const limits = parseRateLimitHeaders(Object.fromEntries(headers));
    if (!limits) return;
    const snapshot = { remaining: limits.remaining, resetAt: limits.reset * 1000 };
    if (limits.resource === "graphql") budget.graphql = snapshot;
    else if (limits.resource === "core") budget.core = snapshot;
  };

  return {
    async graphql(request) {
      const response = await fetch(`${base}/graphql`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify(request),
      });
      const text = await response.text();
      let json: { data?: unknown; errors?: unknown[] } = {};
      try {
        json = JSON.parse(text) as typeof json;
      } catch {
        // A non-JSON answer (a proxy's error page) has no data; the lifecycle retries the batch.
      }
      learn(response.headers);
      const cost = parseRateLimit(json.data)?.cost ?? 0;
      stats.graphqlQueries += 1;
      stats.graphqlPoints += cost;
      return {
        status: response.status,
        ...(json.data === undefined ? {} : { data: json.data }),
        ...(json.errors === undefined ? {} : { errors: json.errors }),
        cost,
      };
    },
    async restConditional({ path, etag }) {
      const response = await fetch(`${base}${path}`, {
        headers: etag === undefined ? headers : { ...headers, "if-none-match": etag },
      });
      stats.restRequests += 1;
      learn(response.headers);
      const newEtag = response.headers.get("etag") ?? undefined;
      if (response.status === 304) {
        stats.restNotModified += 1;
        await response.body?.cancel();
        return { status: 304, ...(newEtag ? { etag: newEtag } : {}), cost: 0 };
      }
      let body: unknown;
      try {
        body = await response.json();
      } catch {
        body = undefined;
      }
      return { status: response.status, ...(newEtag ? { etag: newEtag } : {}), body, cost: 1 };
    },
    async invalidate(target) {
      await options.invalidate?.(target);
    },
    async publish(event) {
      await options.publish?.(event);
    },
    async budget() {
      return { ...budget };
    },
    stats: () => ({ ...stats }),
  };
}
