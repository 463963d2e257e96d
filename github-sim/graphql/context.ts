/**
 * What every GraphQL resolver sees: the world, the web base for `url` fields, and this request's
 * rate-limit figures (charged before execution, so `rateLimit { ... }` reports the state after
 * this query, as GitHub does).
 */
import type { SimCommit, SimRepo } from "../core/model.js";
import type { World } from "../core/world.js";

export interface RateLimitView {
  readonly cost: number;
  readonly nodeCount: number;
  readonly limit: number;
  readonly remaining: number;
  readonly used: number;
  /** ISO-8601, seconds precision. */
  readonly resetAt: string;
}

/** Anything the executor can resolve abstract types for. */
export interface View {
  readonly __typename: string;
}

/**
 * The views that views further down the object graph link back up to (a check run's repository and
 * commit, a pull request's refs). Reached through the context so that each view file imports only
 * the views below it and the files form no import circle (views/view-links.ts fills it in).
 */
export interface ViewLinks {
  repository(ctx: GqlContext, repo: SimRepo): View;
  commit(ctx: GqlContext, repo: SimRepo, commit: SimCommit): View;
  ref(ctx: GqlContext, repo: SimRepo, name: string): View | null;
}

export interface GqlContext {
  readonly world: World;
  /** GitHub's DateTime for an epoch-ms instant (memoised per simulator). */
  readonly iso: TimeFormat;
  /** e.g. `http://github.localhost` (no trailing slash). */
  readonly webBase: string;
  readonly rateLimit: RateLimitView;
  readonly links: ViewLinks;
}

/** GitHub's DateTime: ISO-8601 in UTC without milliseconds. */
export function isoTime(ms: number): string;
export function isoTime(ms: number | null): string | null;
export function isoTime(ms: number | null): string | null {
  return ms === null ? null : new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

export type TimeFormat = typeof isoTime;

/**
 * isoTime with a bounded memo: the world's timestamps repeat across queries, and formatting is
 * a measurable share of executing a large query. One per simulator.
 */
export function memoisedIsoTime(max = 50_000): TimeFormat {
  const cache = new Map<number, string>();
  const format = (ms: number | null): string | null => {
    if (ms === null) return null;
    let text = cache.get(ms);
    if (text === undefined) {
      if (cache.size >= max) cache.clear();
      text = isoTime(ms);
      cache.set(ms, text);
    }
    return text;
  };
  return format as TimeFormat;
}
