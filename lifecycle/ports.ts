/**
 * What the lifecycle needs from the world, declared here and implemented by the broker's
 * composition root (lifecycle/ never imports broker/: docs/decisions/0002). Tests implement them
 * with a small fake GitHub; the integration test implements them over HTTP to github-sim.
 */
import type { LifecycleBudget } from "./core/cadence.js";
import type { LifecycleEvent } from "./core/lifecycle-event.js";

export interface GraphQLPortRequest {
  readonly query: string;
  readonly variables?: Record<string, unknown>;
}

export interface GraphQLPortResponse {
  /** HTTP status of the upstream answer (200 even for GraphQL-level errors, as GitHub does). */
  readonly status: number;
  readonly data?: unknown;
  readonly errors?: unknown[];
  /** Points charged for this query (0 when the broker answered without GitHub). */
  readonly cost: number;
}

export interface RestConditionalRequest {
  /** Path and query, e.g. `/repos/o/r/pulls?state=all&per_page=20`. Always a GET. */
  readonly path: string;
  /** The ETag of the last answer, sent as If-None-Match. */
  readonly etag?: string;
}

export interface RestConditionalResponse {
  /** 304 when the ETag still matches. */
  readonly status: number;
  readonly etag?: string;
  /** Parsed JSON body (absent on 304). */
  readonly body?: unknown;
  /** Requests charged against the REST bucket: 0 for a 304. */
  readonly cost: number;
}

export interface InvalidateTarget {
  readonly repo: string;
  /** Only that PR's cached answers; the whole repository's when absent (e.g. a new PR appeared). */
  readonly pr?: number;
  readonly reason: string;
  /**
   * Which facets of the PR moved (core, state, updated, head, checks, reviews, comments, threads,
   * merge: docs/caching.md); every facet when absent. The broker drops only answers that read them.
   */
  readonly facets?: readonly string[];
  /** The PR's head SHA, when checks moved: answers about that commit's checks go too. */
  readonly headSha?: string;
  /** The head branch: a new PR (no `pr`) or a state change moves that branch's PR lookup only. */
  readonly branch?: string;
  /**
   * Workflow runs the Actions guard saw move. Without `pr`: those runs' answers, the run lists,
   * job details, their heads' commit checks, and the checks of the PRs learned for their branches
   * (and nothing about a new PR). With `pr` and checks moving: only these runs' Actions answers
   * (empty: none, the Actions guard watches them). Absent with checks moving: every Actions answer
   * of the repository (which runs moved is not known).
   */
  readonly runs?: readonly MovedRunTarget[];
  /**
   * With `runs` and no `pr`: head branches of watched PRs the lifecycle invalidates itself once it
   * has re-read them (poll-cycle.ts): their PRs' checks are not moved by this target.
   */
  readonly handledBranches?: readonly string[];
}

export interface MovedRunTarget {
  readonly id: number;
  readonly headSha: string;
  readonly branch: string | null;
}

/** Nothing moved in a repository's workflow runs up to `at` (since its first read, `since`). */
export interface ActionsVouchTarget {
  readonly repo: string;
  readonly at: number;
  readonly since: number;
  /** Heads whose commit checks (check runs and statuses) nothing moved up to their `at`. */
  readonly heads: readonly { readonly sha: string; readonly at: number }[];
  /**
   * The runs on the guard's page. Only their own answers (record, jobs) are vouched: a full page
   * shows no move of a run older than its oldest, so such a run's answers must not be.
   */
  readonly runs: readonly number[];
}

/** Nothing changed for this PR up to `at` that was not already invalidated. */
export interface VouchTarget {
  readonly repo: string;
  readonly pr: number;
  readonly at: number;
}

/** Nothing changed in a repository's PR list or issues list up to `at` that was not invalidated. */
export interface ListVouchTarget {
  readonly repo: string;
  /** `pulls`: the PR list by updated_at; `issues`: the issues list (issues and PRs) by updated_at. */
  readonly list: "pulls" | "issues";
  readonly at: number;
  /** The guard's first complete read: answers stored before it may predate a change it never saw. */
  readonly since: number;
}

export interface LifecyclePorts {
  /**
   * A GraphQL query sent upstream at lifecycle priority. The broker must not answer it from its
   * GraphQL cache: the lifecycle is what tells the cache that PR data changed.
   */
  graphql(
    request: GraphQLPortRequest,
    options: { readonly priority: "lifecycle" },
  ): Promise<GraphQLPortResponse>;
  /** A conditional GET through the broker's cache: a 304 is free. */
  restConditional(request: RestConditionalRequest): Promise<RestConditionalResponse>;
  /** Drop cached GraphQL (and REST) answers about this PR or repository, so agents see the change. */
  invalidate(target: InvalidateTarget): Promise<void>;
  /**
   * Tell the cache that the guards saw nothing change for these PRs up to `at` (every change they
   * did see was invalidated first), so agents' answers about them may be served past their plain
   * freshness. Optional: without it the cache keeps to its own freshness.
   */
  vouch?(targets: readonly VouchTarget[]): Promise<void>;
  /**
   * The same for whole lists: the repository's PR-list and issues-list guards saw nothing move up
   * to `at` (every item they saw move was invalidated first). Optional; when present the lifecycle
   * also runs the issues-list guard, so issue reads and PR lists have a free signal too.
   */
  vouchLists?(targets: readonly ListVouchTarget[]): Promise<void>;
  /**
   * The same for Actions: the repository's Actions guard (actions/runs) saw no run move up to
   * `at`, and the heads listed had no check run or status move. Optional; when present the
   * lifecycle runs the Actions guard, and the check-runs guards of the PRs it covers become a
   * slow backstop.
   */
  vouchActions?(targets: readonly ActionsVouchTarget[]): Promise<void>;
  /**
   * When agents last read each of these PRs through the broker (epoch ms, null when not known),
   * in the same order. Optional: PRs agents read have their check guards kept at the active
   * cadence, so the vouches for what they cached stay recent.
   */
  agentReads?(
    prs: readonly { readonly repo: string; readonly pr: number }[],
  ): Promise<readonly (number | null)[]>;
  /** Deliver an event to IPC subscribers and Redis pub/sub. */
  publish(event: LifecycleEvent): Promise<void>;
  /**
   * The GraphQL and REST core buckets as the broker knows them (GitHub's numbers, shared with every
   * session). When absent or partial, the lifecycle uses its own `rateLimit` reads for GraphQL and
   * leaves REST unbounded except by `maxRestPerMinute`.
   */
  budget?(): Promise<LifecycleBudget | undefined>;
  /**
   * True when `graphql` answers carry their cost without the query selecting `rateLimit` (the
   * broker's port: its pipeline charges every query). Then the lifecycle leaves the selection out,
   * so its queries can be merged with agents' (a query selecting rateLimit always goes alone).
   * Absent: the port reads the cost from the query's own `rateLimit { cost }` (direct ports).
   */
  readonly graphqlCostKnown?: boolean;
  /**
   * Holds the broker's refresh of what this cycle moves (decision 0025): flush() sends what was
   * moved so far, to ride in the query the lifecycle sends next (the enrichment); release() sends
   * the rest, once, when the cycle is done. The broker bounds how long a hold lasts. Optional:
   * without it every move is refreshed on the broker's own window.
   */
  holdRefresh?(): RefreshHoldPort;
}

export interface RefreshHoldPort {
  /** Resolves once what was collected so far is submitted (not answered). */
  flush(): Promise<void>;
  /** Ends the hold; resolves once the rest is submitted. */
  release(): Promise<void>;
}
