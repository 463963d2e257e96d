/**
 * What each IPC method returns. The broker builds these and the client trusts them (no run-time
 * validation on the client side: that would cost every gh invocation zod's startup). All times are
 * ISO-8601 UTC strings, all durations are milliseconds with an `Ms` suffix. Records that other
 * folders own (stats, lifecycle status, broker status extras) stay open here so those folders can
 * add fields without a protocol change.
 */

/** How an answer was served; the gateway sends the same value as `x-ao-broker-cache`. */
export type CacheResult =
  | "HIT"
  | "REVALIDATED"
  | "MISS"
  | "COALESCED"
  | "BATCHED"
  | "STALE"
  | "STALE_REVALIDATING"
  | "BYPASS";

/** Upstream priority classes, highest first. */
export type Priority = "lifecycle" | "interactive" | "write" | "background";

export interface BrokerInfo {
  readonly version: string;
  readonly pid: number;
  /** Base URL of the HTTP gateway, e.g. `http://127.0.0.1:7191`. */
  readonly gatewayUrl: string;
  /** Absolute path of the IPC socket. */
  readonly socket: string;
}

export interface HelloResult {
  readonly protocol: number;
  readonly broker: BrokerInfo;
  /** Methods this broker implements (others answer -32601). */
  readonly methods: readonly string[];
}

export interface RecentCommand {
  /** e.g. `gh pr checks 12`. */
  readonly command: string;
  /** Points (GraphQL) or requests (REST) charged. */
  readonly cost: number;
  readonly at: string;
}

export interface SessionStats {
  readonly requests: number;
  readonly upstreamRequests: number;
  readonly graphqlPoints: number;
  readonly restRequests: number;
  readonly cacheHits: number;
  readonly coalesced: number;
  readonly batched: number;
  readonly queueWaitMsP50: number;
  readonly queueWaitMsP95: number;
  readonly invocations: number;
  readonly recentCommands: readonly RecentCommand[];
}

export interface SessionInfo {
  readonly id: string;
  readonly repo: string;
  readonly weight: number;
  readonly readOnly: boolean;
  readonly projectId: string | null;
  readonly issueId: string | null;
  readonly worktree: string | null;
  readonly createdAt: string;
  readonly lastSeenAt: string;
  /** When the session (and its token) expires; null when it lives until closed. */
  readonly expiresAt: string | null;
  readonly stats: SessionStats;
}

export interface SessionOpenResult {
  readonly session: SessionInfo;
  /** The session token: works only against the gateway, never the PAT. */
  readonly token: string;
  /** What an agent process needs: GH_HOST, GH_TOKEN, HTTP_PROXY, GH_REPO, ... */
  readonly env: Readonly<Record<string, string>>;
}

export interface SessionCloseResult {
  readonly closed: boolean;
  readonly revokedTokens: number;
}

export interface SessionListResult {
  readonly sessions: readonly SessionInfo[];
}

export interface TokenIssueResult {
  readonly token: string;
  readonly invocationId: string;
  readonly expiresAt: string;
}

export interface InvocationFinishResult {
  readonly ok: true;
}

export interface BudgetResource {
  readonly limit: number;
  readonly remaining: number;
  readonly used: number;
  readonly resetAt: string;
  /** Held back for lifecycle and interactive work. */
  readonly reserved: number;
  /** Remaining predicted at `resetAt` at the current spend rate (may be negative). */
  readonly projectedAtReset: number;
}

export interface BudgetSession {
  readonly id: string;
  /** Resource name (`core`, `graphql`, ...) → units charged in the current window. */
  readonly spent: Readonly<Record<string, number>>;
  /** Fraction (0..1) of the shared budget this session is entitled to right now. */
  readonly share: number;
}

/** A count under one of GitHub's secondary limits: what the broker paces to and GitHub's own. */
export interface SecondaryCount {
  readonly used: number;
  readonly limit: number;
  readonly githubLimit: number;
}

/** What a session waits for right now, and until when. */
export interface BudgetWaitInfo {
  readonly sessionId: string;
  /**
   * The limit holding it back: `content-creation-per-minute`, `content-creation-per-hour`,
   * `endpoint-points-per-minute`, `secondary-limit-pause`, `primary-budget` (the upstream queue's
   * pacing, all brokers), or the budget gate's `budget`, `fair-share`, `pace` (this broker).
   */
  readonly limit: string;
  /** `graphql`, a REST endpoint (`/repos/:owner/:repo/issues/:n/comments`) or a primary resource. */
  readonly endpoint: string;
  /** ISO time it may go or asks again. */
  readonly until: string;
  /** ISO time it has been waiting since. */
  readonly since: string;
}

/** GitHub's secondary limits as the upstream queue paces them, across all brokers. */
export interface BudgetSecondary {
  /** The limits' minute, ms (60,000 unless a simulator compresses time). */
  readonly minuteMs: number;
  /** Content-creating requests (PR create, comments, reviews, issues) this minute and this hour. */
  readonly contentCreation: { readonly minute: SecondaryCount; readonly hour: SecondaryCount };
  /** GraphQL points this minute (a query 1, a mutation 5). */
  readonly graphqlPoints: SecondaryCount;
  /** REST points this minute of the busiest endpoints (a GET or a 304 1, a write 5), most first. */
  readonly endpoints: readonly (SecondaryCount & { readonly endpoint: string })[];
  /** Requests in flight to GitHub. */
  readonly concurrency: SecondaryCount;
  /** ISO time until which GitHub asked for a pause, when one is in force. */
  readonly pausedUntil?: string | undefined;
}

export interface BudgetResult {
  /** Resource name (`core`, `graphql`, ...) → the global bucket. */
  readonly resources: Readonly<Record<string, BudgetResource>>;
  readonly sessions: readonly BudgetSession[];
  /** Absent from a broker without an upstream queue (degraded mode). */
  readonly secondary?: BudgetSecondary | undefined;
  /** Sessions waiting for a limit now, oldest first. */
  readonly waiting?: readonly BudgetWaitInfo[] | undefined;
}

export interface GraphqlResult {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** GitHub's JSON answer, parsed (`data`, `errors`). */
  readonly body: unknown;
  readonly cache: CacheResult;
  readonly cost: number;
}

export interface RestResult {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** `base64` when the body is not valid UTF-8 (archives, some logs). */
  readonly bodyEncoding: "utf8" | "base64";
  readonly cache: CacheResult;
  readonly cost: number;
}

/** Broker-wide counters; the broker decides the keys. */
export type StatsResult = Readonly<Record<string, unknown>>;

export interface LifecycleWatchResult {
  readonly watching: true;
}

export interface LifecycleUnwatchResult {
  readonly unwatched: boolean;
}

export interface LifecycleStatusResult {
  /** One record per watched session; lifecycle/ owns the shape. */
  readonly sessions: readonly Readonly<Record<string, unknown>>[];
}

export interface EventsSubscribeResult {
  readonly subscriptionId: string;
  /** The topics as the broker understood them (`["*"]` when none were given). */
  readonly topics: readonly string[];
}

export interface EventsUnsubscribeResult {
  readonly unsubscribed: boolean;
}

export interface BrokerStatusResult {
  readonly version: string;
  readonly pid: number;
  readonly uptimeSeconds: number;
  readonly gatewayUrl: string;
  readonly socket: string;
  /** `url` has any password masked; `source` says how it was chosen (flag, env, embedded, ...). */
  readonly redis: { readonly url: string; readonly source: string };
  /** Upstream base URL (GitHub or the simulator). */
  readonly upstream: string;
  /** Number of open sessions. */
  readonly sessions: number;
  readonly [key: string]: unknown;
}

export interface BrokerShutdownResult {
  readonly stopping: true;
}
