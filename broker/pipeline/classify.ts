/**
 * Decides, once per request, everything later layers branch on: REST or GraphQL, read or write,
 * which rate-limit bucket, whether the answer may be cached and under which key, which resource tags
 * it reads or invalidates, how fresh it must be, and what GitHub will probably charge.
 */

import { isFreeRestPath, type RateLimitResource, restResourceForPath } from "../../github/index.js";
import { type Tag, vouchGroups } from "../cache/core/facets.js";
import { type FinalEndpoint, finalEndpoint } from "../cache/core/final-answers.js";
import type { GraphQLAnalysis } from "../cache/core/graphql-analysis.js";
import { singleRepo } from "../cache/core/graphql-analysis.js";
import { restReadTags, restWriteEffect, type WriteEffect } from "../cache/core/rest-facets.js";
import type { GraphQLAnalyzer } from "../cache/graphql-analyzer.js";
import type { GraphQLPayload } from "./graphql-payload.js";

export type RequestKind =
  | "rest-read"
  | "rest-write"
  | "graphql-query"
  | "graphql-mutation"
  | "graphql-unparsed";

export interface FreshnessPolicy {
  readonly restFreshMs: number;
  /** How long a final answer (finished CI: core/final-answers.ts) is served; 0 disables. */
  readonly finalAnswerMs?: number;
  /** GraphQL answers about watched PRs, while the lifecycle's guards vouch for them; 0 disables. */
  readonly guardedFreshMs?: number;
  readonly graphqlFreshMs: {
    readonly checks: number;
    readonly pullRequest: number;
    readonly issue: number;
    readonly other: number;
  };
}

export interface RequestClass {
  readonly kind: RequestKind;
  readonly resource: RateLimitResource;
  readonly cacheable: boolean;
  /** Identity of the answer: equal keys are answered identically by GitHub. */
  readonly cacheKey: string;
  readonly reads: readonly Tag[];
  readonly writes: readonly Tag[];
  readonly writeNodeIds: readonly string[];
  /** What a write changes in the facet model; the cache layer resolves it to tags after success. */
  readonly writeEffect?: WriteEffect | undefined;
  readonly freshMs: number;
  /**
   * How long past `freshMs` the answer stays good while the lifecycle vouches for every tag in
   * `vouchTags` (its guards saw nothing change since): staleness is then bounded by the vouch's age.
   * vouchTags name objects (`num:o/r#n`, `node:<id>`), not facet tags.
   */
  readonly guardedFreshMs: number;
  readonly vouchTags: readonly Tag[];
  /**
   * For each tag the answer read, the vouch keys any one of which covers it (core/facets.ts
   * vouchGroups); vouchTags is their flat list. Absent: the answer cannot be vouched for.
   */
  readonly vouchGroups?: readonly (readonly string[])[] | undefined;
  /** Primary points (GraphQL) or requests (REST) GitHub will probably charge. */
  readonly estimatedCost: number;
  /** Costs nothing at GitHub (GET /rate_limit). */
  readonly free: boolean;
  /** Creates a PR, issue, comment or review: GitHub's content-creation limits apply (80/min, 500/h). */
  readonly contentCreation: boolean;
  /** How many content-creating requests it counts as: only a merged mutation's is more than 1. */
  readonly contentCreations?: number | undefined;
  /** A GraphQL query that reads only immutable facts (and static repository information). */
  readonly immutable?: boolean | undefined;
  readonly graphql?: GraphQLAnalysis | undefined;
  readonly repo?: { readonly owner: string; readonly name: string } | undefined;
  /** The query failed to parse or names no operation; GitHub answers it with errors. */
  readonly graphqlProblem?: string | undefined;
  /**
   * A REST read whose answer becomes final once it says CI finished (cache/core/final-answers.ts),
   * with how long a final answer is served.
   */
  readonly final?: { readonly endpoint: FinalEndpoint; readonly ttlMs: number } | undefined;
}

/** Headers that change what GitHub answers, and so belong to the cache key. */
/**
 * Content creation as GitHub's secondary limits count it
 * (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits).
 */
const CREATING_MUTATION =
  /^(create|add)(PullRequest|Issue|Comment|Discussion|DiscussionComment|PullRequestReview|PullRequestReviewComment|PullRequestReviewThread|Reaction)?/;
const CREATING_REST =
  /\/(issues|pulls|comments|reviews|releases|discussions)(\/\d+\/(comments|reviews|replies))?\/?$/;

/**
 * Answers that read only immutable facts (a PR's number, id and headRefName; a workflow
 * definition; a finished log) or static repository information: no motion changes them, only a
 * write through the broker (which moves `repo:`), so they are kept long rather than re-asked.
 */
const IMMUTABLE_FRESH_MS = 300_000;

/** cache/core/refresh-plan.ts REPLAY_HEADERS keeps the same list (a refresh is stored under the agent's key). */
export const VARYING_HEADERS = [
  "accept",
  "x-github-api-version",
  "graphql-features",
  "x-forwarded-host",
  "x-forwarded-proto",
];

function headerKey(headers: Readonly<Record<string, string>>): string {
  return VARYING_HEADERS.map((h) => `${h}=${headers[h] ?? ""}`).join("&");
}

export interface ClassifyInput {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly graphql?: GraphQLPayload | undefined;
  /** A REST write's bytes, read where its path alone does not tell what it changes (rest-facets.ts). */
  readonly body?: Uint8Array | undefined;
}

export function classifyRequest(
  input: ClassifyInput,
  analyzer: GraphQLAnalyzer,
  policy: FreshnessPolicy,
): RequestClass {
  const isGraphQL =
    input.method === "POST" && (input.path === "/graphql" || input.path.startsWith("/graphql?"));
  if (isGraphQL) {
    const payload = input.graphql;
    const base = {
      resource: "graphql" as RateLimitResource,
      writes: [],
      writeNodeIds: [],
      free: false,
      contentCreation: false,
      reads: [],
      guardedFreshMs: 0,
      vouchTags: [],
    };
    // GitHub answers these with errors; they are forwarded as they are, never cached.
    const unparsed = (problem: string): RequestClass => ({
      ...base,
      kind: "graphql-unparsed",
      cacheable: false,
      cacheKey: "",
      freshMs: 0,
      estimatedCost: 1,
      graphqlProblem: problem,
    });
    if (!payload) return unparsed("no query");
    const analysis = analyzer.analyze(payload.query, payload.variables, payload.operationName);
    if ("error" in analysis) return unparsed(analysis.message);
    const repo = singleRepo(analysis);
    if (analysis.operationType !== "query") {
      return {
        ...base,
        kind: "graphql-mutation",
        cacheable: false,
        cacheKey: "",
        writes: analysis.writes,
        writeNodeIds: analysis.writeNodeIds,
        writeEffect: analysis.writeEffect,
        contentCreation: analysis.rootFields.some(
          (f) => CREATING_MUTATION.test(f) && !/Label|Assignee|Reviewer|Star/.test(f),
        ),
        freshMs: 0,
        estimatedCost: analysis.cost.cost,
        graphql: analysis,
        repo,
      };
    }
    const immutable =
      (analysis.namesObjects && analysis.reads.every((t) => t.startsWith("repo:"))) ||
      analysis.staticRepository;
    const freshMs = analysis.introspection
      ? 3600_000
      : immutable
        ? Math.max(IMMUTABLE_FRESH_MS, policy.graphqlFreshMs[analysis.dataClass])
        : policy.graphqlFreshMs[analysis.dataClass];
    const groups = analysis.introspection ? undefined : vouchGroups(analysis.reads);
    const vouchTags = groups ? [...new Set(groups.flat())] : undefined;
    return {
      ...base,
      kind: "graphql-query",
      // rateLimit answers are live numbers; errors in cost (pagination, node limit) are never cached.
      cacheable: !analysis.selectsRateLimit && analysis.cost.errors.length === 0,
      cacheKey: `G\u0000${headerKey(input.headers)}\u0000${analysis.canonicalKey}`,
      reads: analysis.reads,
      freshMs,
      guardedFreshMs: vouchTags ? Math.max(policy.guardedFreshMs ?? 0, freshMs) : 0,
      vouchTags: vouchTags ?? [],
      vouchGroups: groups,
      estimatedCost: analysis.cost.cost,
      graphql: analysis,
      repo,
      ...(immutable && !analysis.introspection ? { immutable: true } : {}),
    };
  }
  const resource = restResourceForPath(input.path);
  const read = input.method === "GET" || input.method === "HEAD";
  // The Accept header picks the representation: a diff of pulls/N reads less than its JSON.
  const reads = read ? restReadTags(input.path, input.headers.accept) : [];
  // A numbered object under `pulls/` is a PR: the PR-list guard vouches for it as well.
  const pullRequests = /^\/repos\/[^/]+\/[^/]+\/pulls\/\d+(\/|$|\?)/.test(input.path);
  const restGroups =
    read && (policy.guardedFreshMs ?? 0) > 0 ? vouchGroups(reads, { pullRequests }) : undefined;
  const match = /^\/repos\/([^/]+)\/([^/?#]+)/.exec(input.path);
  const repo = match
    ? { owner: decodeURIComponent(match[1] ?? ""), name: decodeURIComponent(match[2] ?? "") }
    : undefined;
  const free = isFreeRestPath(input.path);
  const endpoint = read && (policy.finalAnswerMs ?? 0) > 0 ? finalEndpoint(input.path) : undefined;
  return {
    kind: read ? "rest-read" : "rest-write",
    resource,
    cacheable: read && !free,
    cacheKey: read ? `R\u0000${input.method} ${input.path}\u0000${headerKey(input.headers)}` : "",
    reads,
    writes: [],
    writeNodeIds: [],
    ...(read ? {} : { writeEffect: restWriteEffect(input.method, input.path, input.body) }),
    freshMs: read
      ? reads.length === 0 && input.path.startsWith("/repos/")
        ? Math.max(IMMUTABLE_FRESH_MS, policy.restFreshMs)
        : policy.restFreshMs
      : 0,
    // Vouched like GraphQL answers: a revalidation is free on the primary budget but not on the
    // secondary limits, and waits a round trip; a free signal that saw nothing move is enough.
    guardedFreshMs: restGroups ? Math.max(policy.guardedFreshMs ?? 0, policy.restFreshMs) : 0,
    vouchTags: restGroups ? [...new Set(restGroups.flat())] : [],
    vouchGroups: restGroups,
    estimatedCost: free ? 0 : 1,
    free,
    contentCreation: input.method === "POST" && CREATING_REST.test(input.path.split("?")[0] ?? ""),
    repo,
    ...(endpoint ? { final: { endpoint, ttlMs: policy.finalAnswerMs ?? 0 } } : {}),
  };
}
