/**
 * The enrichment query: one aliased GraphQL document for up to 25–50 PRs, possibly in several
 * repositories, asking per PR what AO's enrichSessionsPRBatch asks (title, state, size, draft,
 * mergeability, review decision, head, the head commit's check rollup with its contexts) plus the
 * last review threads (for new unresolved comments) and the last 5 reviews, and the comment count
 * (`totalCommentsCount`: an updatedAt move that leaves it unchanged added no comment; a scalar,
 * it costs nothing).
 *
 * Cost, by GitHub's arithmetic (github/ computeQueryCost): per PR four connections are asked for
 * once each — commits(last: 1), its rollup's contexts (multiplied by commits' page size, 1),
 * reviewThreads and reviews — so n PRs cost round(4n / 100) points: 25 PRs → 1 point (so does
 * anything up to 37), 50 PRs → 2. Page sizes inside do not change the cost, only the node count.
 * Values are inlined as GraphQL string literals (repo names are validated before they get here).
 */

import { readRateLimitFields } from "../../github/index.js";
import { DEFAULT_LIFECYCLE_CONFIG } from "../config.js";
import { parsePrNode } from "./parse-pr-node.js";
import type { PrFacts } from "./pr-facts.js";
import { dig } from "./read-json.js";
import { parseRepo } from "./repo-ref.js";

/** Connections each PR of the enrichment query asks for (see the cost note above). */
export const ENRICHMENT_REQUESTS_PER_PR = 4;

/**
 * Points an enrichment query of n PRs costs: GitHub's max(1, round(requests / 100)), restated here
 * because a pure core may not import github/; a unit test checks it against computeQueryCost.
 */
export function enrichmentPoints(prs: number): number {
  return Math.max(1, Math.round((prs * ENRICHMENT_REQUESTS_PER_PR) / 100));
}

export interface PrTarget {
  readonly repo: string;
  readonly number: number;
}

export interface EnrichmentQueryOptions {
  /** Check contexts read per PR. @defaultValue 50 */
  readonly checkContexts?: number;
  /** Most recent review threads read per PR. @defaultValue 50 */
  readonly reviewThreads?: number;
  /** Most recent reviews read per PR. @defaultValue 5 */
  readonly reviews?: number;
  /**
   * Select `rateLimit` (the lifecycle's own cost and budget reading). Off when the port knows the cost
   * (inside the broker): a query that selects rateLimit is never merged with others
   * (broker/batch alone-reason `selects-rate-limit`). @defaultValue true
   */
  readonly rateLimit?: boolean;
}

/** The rateLimit line of a lifecycle query, or nothing when the port knows the budget. */
export function rateLimitLine(options: { readonly rateLimit?: boolean } = {}): string {
  return options.rateLimit === false ? "" : `  ${RATE_LIMIT_SELECTION}\n`;
}

export interface RateLimitInfo {
  readonly cost: number;
  readonly remaining: number;
  readonly limit: number | null;
  readonly resetAt: number | null;
}

export interface BuiltEnrichmentQuery {
  readonly query: string;
  /** Response path (repository alias, PR alias) for each target, in input order. */
  readonly paths: readonly {
    readonly target: PrTarget;
    readonly repoAlias: string;
    readonly prAlias: string;
  }[];
}

export function prFragment(options: EnrichmentQueryOptions = {}): string {
  const contexts = options.checkContexts ?? DEFAULT_LIFECYCLE_CONFIG.checkContexts;
  const threads = options.reviewThreads ?? DEFAULT_LIFECYCLE_CONFIG.reviewThreads;
  const reviews = options.reviews ?? DEFAULT_LIFECYCLE_CONFIG.reviews;
  return `fragment LifecyclePr on PullRequest {
  number url title state isDraft additions deletions mergeable mergeStateStatus reviewDecision
  headRefName headRefOid baseRefName updatedAt totalCommentsCount
  commits(last: 1) { nodes { commit { oid statusCheckRollup { state
    contexts(first: ${contexts}) { totalCount nodes { __typename
      ... on CheckRun { name status conclusion detailsUrl startedAt completedAt checkSuite { app { slug } } }
      ... on StatusContext { context state targetUrl createdAt } } } } } } }
  reviewThreads(last: ${threads}) { totalCount nodes { id isResolved } }
  reviews(last: ${reviews}) { nodes { author { login } state submittedAt } }
}`;
}

export const RATE_LIMIT_SELECTION = "rateLimit { cost remaining limit resetAt }";

function literal(value: string): string {
  return JSON.stringify(value);
}

/** Groups targets by repository (first-seen order) and aliases them r<i> / p<number>. */
export function buildEnrichmentQuery(
  targets: readonly PrTarget[],
  options: EnrichmentQueryOptions = {},
): BuiltEnrichmentQuery {
  const repos = new Map<string, { alias: string; numbers: Set<number> }>();
  const paths: { target: PrTarget; repoAlias: string; prAlias: string }[] = [];
  for (const target of targets) {
    const ref = parseRepo(target.repo);
    if (!ref) throw new TypeError(`not an owner/name repository: ${JSON.stringify(target.repo)}`);
    const key = target.repo.toLowerCase();
    let entry = repos.get(key);
    if (!entry) {
      entry = { alias: `r${repos.size}`, numbers: new Set() };
      repos.set(key, entry);
    }
    entry.numbers.add(target.number);
    paths.push({ target, repoAlias: entry.alias, prAlias: `p${target.number}` });
  }
  const blocks = [...repos.entries()].map(([key, entry]) => {
    const ref = parseRepo(key) as { owner: string; name: string };
    const prs = [...entry.numbers]
      .map((n) => `    p${n}: pullRequest(number: ${n}) { ...LifecyclePr }`)
      .join("\n");
    return `  ${entry.alias}: repository(owner: ${literal(ref.owner)}, name: ${literal(ref.name)}) {\n${prs}\n  }`;
  });
  const query = `query LifecycleEnrich {\n${rateLimitLine(options)}${blocks.join("\n")}\n}\n${prFragment(options)}`;
  return { query, paths };
}

export function parseRateLimit(data: unknown): RateLimitInfo | undefined {
  const rate = readRateLimitFields(dig(data, "rateLimit"));
  if (rate?.remaining === undefined) return undefined;
  const reset = rate.resetAt !== undefined ? Date.parse(rate.resetAt) : Number.NaN;
  return {
    cost: rate.cost ?? 0,
    remaining: rate.remaining,
    limit: rate.limit ?? null,
    resetAt: Number.isNaN(reset) ? null : reset,
  };
}

export interface EnrichmentResult {
  readonly target: PrTarget;
  /** undefined when the answer had no usable node for this PR (not found, no access, malformed). */
  readonly facts: PrFacts | undefined;
}

export function parseEnrichmentAnswer(
  data: unknown,
  built: BuiltEnrichmentQuery,
  observedAt: number,
): EnrichmentResult[] {
  return built.paths.map(({ target, repoAlias, prAlias }) => ({
    target,
    facts: parsePrNode(target.repo, dig(data, repoAlias, prAlias), observedAt),
  }));
}
