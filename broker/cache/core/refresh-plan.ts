/**
 * Refresh once, for everyone (decision 0014): which recently read answers to fetch again after
 * tags moved, and what the registry keeps to be able to. Pure: the registry (refresh-registry.ts)
 * reads Redis and hands the entries in.
 *
 * A replay names the request exactly as GitHub saw it, minus who sent it: the method, the path,
 * the headers that change GitHub's answer (the cache key's), and for GraphQL the query, variables
 * and operation name. Never a token, never a caller.
 */
import type { Tag } from "./facets.js";

/**
 * The headers kept with a replay: exactly those that belong to the cache key (pipeline/classify.ts
 * VARYING_HEADERS), so the refreshed answer is stored under the key the agent reads.
 */
export const REPLAY_HEADERS = [
  "accept",
  "x-github-api-version",
  "graphql-features",
  "x-forwarded-host",
  "x-forwarded-proto",
] as const;

export interface ReplaySpec {
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly graphql?:
    | {
        readonly query: string;
        readonly variables: Readonly<Record<string, unknown>>;
        readonly operationName?: string | undefined;
      }
    | undefined;
}

export interface ReplayInput {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly graphql?: ReplaySpec["graphql"];
}

/** The replay of a read, or undefined when it cannot be replayed (not a GET or a GraphQL query). */
export function replaySpec(input: ReplayInput): ReplaySpec | undefined {
  const headers: Record<string, string> = {};
  for (const name of REPLAY_HEADERS) {
    const value = input.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  if (input.method === "GET") return { method: "GET", path: input.path, headers };
  if (input.method === "POST" && input.graphql) {
    const { query, variables, operationName } = input.graphql;
    return {
      method: "POST",
      path: input.path,
      headers,
      graphql: { query, variables, ...(operationName ? { operationName } : {}) },
    };
  }
  return undefined;
}

/** Parses a stored replay; undefined for anything malformed (it is then simply not refreshed). */
export function parseReplaySpec(text: string | null | undefined): ReplaySpec | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as Partial<ReplaySpec>;
    if ((v.method !== "GET" && v.method !== "POST") || typeof v.path !== "string") return undefined;
    if (typeof v.headers !== "object" || v.headers === null) return undefined;
    if (
      v.method === "POST" &&
      (typeof v.graphql?.query !== "string" || typeof v.graphql.variables !== "object")
    )
      return undefined;
    return v as ReplaySpec;
  } catch {
    return undefined;
  }
}

/** One registered read found under a moved tag. */
export interface RegistryHit {
  /** sha256 of the cache key (the entry's name). */
  readonly hashed: string;
  /** When an agent last read it, epoch ms. */
  readonly readAt: number;
  /** The moved tags it was registered under. */
  readonly tags: readonly Tag[];
  readonly spec?: ReplaySpec | undefined;
}

export interface RefreshPlanOptions {
  readonly now: number;
  /** Only answers read this recently are refreshed. */
  readonly recentReadMs: number;
  /** At most this many answers per refresh; the most recently read first. */
  readonly maxAnswers: number;
}

export interface PlannedRefresh {
  readonly hashed: string;
  readonly spec: ReplaySpec;
  readonly tags: readonly Tag[];
}

export interface RefreshPlan {
  readonly graphql: readonly PlannedRefresh[];
  readonly rest: readonly PlannedRefresh[];
  /** Registered but not refreshed: read too long ago, no replay, or past maxAnswers. */
  readonly skipped: number;
}

/**
 * Which answers to refresh: each key once (its moved tags merged), read within recentReadMs,
 * with a replay, the most recently read first up to maxAnswers; GraphQL (merged into one query
 * by the batcher) and REST (conditional GETs) apart.
 */
export function planRefresh(hits: readonly RegistryHit[], options: RefreshPlanOptions): RefreshPlan {
  const byKey = new Map<string, { readAt: number; tags: Set<Tag>; spec?: ReplaySpec | undefined }>();
  for (const hit of hits) {
    const seen = byKey.get(hit.hashed);
    if (seen) {
      seen.readAt = Math.max(seen.readAt, hit.readAt);
      for (const t of hit.tags) seen.tags.add(t);
      seen.spec ??= hit.spec;
    } else byKey.set(hit.hashed, { readAt: hit.readAt, tags: new Set(hit.tags), spec: hit.spec });
  }
  const eligible = [...byKey]
    .filter(([, v]) => v.spec !== undefined && options.now - v.readAt <= options.recentReadMs)
    .sort((a, b) => b[1].readAt - a[1].readAt || (a[0] < b[0] ? -1 : 1))
    .slice(0, Math.max(0, options.maxAnswers));
  const graphql: PlannedRefresh[] = [];
  const rest: PlannedRefresh[] = [];
  for (const [hashed, v] of eligible) {
    const planned = { hashed, spec: v.spec as ReplaySpec, tags: [...v.tags].sort() };
    (planned.spec.graphql ? graphql : rest).push(planned);
  }
  return { graphql, rest, skipped: byKey.size - eligible.length };
}
