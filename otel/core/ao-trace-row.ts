/**
 * AO's gh trace row (AO_GH_TRACE_FILE, one JSON object per line), built from what the broker knows
 * about one call. The schema is AO's own (packages/core gh-trace: timestamp, component, operation,
 * projectId, sessionId, cwd, args, endpoint, method, ok, exitCode, signal, durationMs, stdoutBytes,
 * stderrBytes, statusLine, httpStatus, etag, rateLimit*, graphql*), so AO's analyzers read our rows
 * unchanged. AO's tracer could only see what gh printed; the broker fills every field from the
 * requests it served, and adds one optional `broker` object (requests, cache results, points
 * charged) that AO's analyzers ignore.
 *
 * A "call" is one gh invocation (args present: its requests are summarised into one row) or one
 * request the broker made for itself or for an IPC client (args absent: the row describes that
 * request as if it had been `gh api <path>`).
 *
 * Invariants: args are redacted (core/redact-args.ts); fields AO declares optional are omitted when
 * unknown, never null; graphqlCost is what this call cost the shared token (0 for a cache hit, a
 * share of a batched query), which is the number AO's burn analysis needs.
 */
import { ghApiEndpoint, ghApiMethod, ghOperation } from "./command-name.js";
import { redactArgs } from "./redact-args.js";
import { scrubText } from "./secret-scrub.js";

export interface AoTraceRow {
  readonly timestamp: string;
  readonly component: string;
  readonly operation: string;
  readonly projectId?: string;
  readonly sessionId?: string;
  readonly cwd?: string;
  readonly args: readonly string[];
  readonly endpoint?: string;
  readonly method?: string;
  readonly ok: boolean;
  readonly exitCode?: number;
  readonly signal?: string;
  readonly durationMs: number;
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
  readonly statusLine?: string;
  readonly httpStatus?: number;
  readonly etag?: string;
  readonly rateLimitLimit?: number;
  readonly rateLimitRemaining?: number;
  readonly rateLimitReset?: number;
  readonly rateLimitResource?: string;
  readonly graphqlCost?: number;
  readonly graphqlRemaining?: number;
  readonly graphqlResetAt?: string;
  /** ao-broker's additions (ignored by AO's analyzers). */
  readonly broker?: {
    readonly invocationId?: string;
    readonly requests: number;
    readonly pointsCharged: number;
    readonly waitedMs: number;
    readonly cache: Readonly<Record<string, number>>;
  };
}

/** One request the broker served within a call. */
export interface AoTraceResponse {
  readonly method: string;
  /** Path as GitHub sees it, e.g. `/graphql`, `/repos/o/r/pulls?state=open`. */
  readonly path: string;
  readonly status: number;
  /** Lower-case header names (x-ratelimit-*, etag). */
  readonly headers?: Readonly<Record<string, string | undefined>>;
  /** Rate-limit bucket (core, graphql, search). */
  readonly resource?: string;
  /** Points or requests charged to the caller. */
  readonly cost?: number;
  /** How it was served (HIT, MISS, COALESCED, ...). */
  readonly cache?: string;
  readonly waitedMs?: number;
}

/** Running summary of a call's requests: constant size however many requests a call makes. */
export interface AoTraceRequestSummary {
  readonly count: number;
  readonly pointsCharged: number;
  readonly graphqlCost: number;
  readonly graphqlCount: number;
  readonly waitedMs: number;
  readonly cache: Readonly<Record<string, number>>;
  readonly first: AoTraceResponse | undefined;
  readonly last: AoTraceResponse | undefined;
  readonly lastGraphql: AoTraceResponse | undefined;
}

export const EMPTY_REQUEST_SUMMARY: AoTraceRequestSummary = {
  count: 0,
  pointsCharged: 0,
  graphqlCost: 0,
  graphqlCount: 0,
  waitedMs: 0,
  cache: {},
  first: undefined,
  last: undefined,
  lastGraphql: undefined,
};

function isGraphql(response: AoTraceResponse): boolean {
  return response.resource === "graphql" || (response.path.split("?")[0] ?? "") === "/graphql";
}

export function addResponse(
  summary: AoTraceRequestSummary,
  response: AoTraceResponse,
): AoTraceRequestSummary {
  const graphql = isGraphql(response);
  const cost = response.cost ?? 0;
  const cache =
    response.cache === undefined
      ? summary.cache
      : { ...summary.cache, [response.cache]: (summary.cache[response.cache] ?? 0) + 1 };
  return {
    count: summary.count + 1,
    pointsCharged: summary.pointsCharged + cost,
    graphqlCost: summary.graphqlCost + (graphql ? cost : 0),
    graphqlCount: summary.graphqlCount + (graphql ? 1 : 0),
    waitedMs: summary.waitedMs + (response.waitedMs ?? 0),
    cache,
    first: summary.first ?? response,
    last: response,
    lastGraphql: graphql ? response : summary.lastGraphql,
  };
}

export interface AoTraceRowInput {
  /** AO's component name; the broker uses "ao-broker.shim" for agent gh calls, "ao-broker.lifecycle", ... */
  readonly component: string;
  /** Epoch ms at which the call finished (AO stamps rows when the call returns). */
  readonly finishedAt: number;
  readonly durationMs: number;
  /** gh arguments after `gh`; absent for calls the broker made itself. */
  readonly args?: readonly string[] | undefined;
  /** Overrides the operation derived from args or from the first request. */
  readonly operation?: string | undefined;
  readonly projectId?: string | undefined;
  readonly sessionId?: string | undefined;
  readonly invocationId?: string | undefined;
  readonly cwd?: string | undefined;
  readonly exitCode?: number | undefined;
  readonly signal?: string | undefined;
  readonly stdoutBytes?: number | undefined;
  readonly stderrBytes?: number | undefined;
  readonly requests: AoTraceRequestSummary;
  /** Values to scrub from every string field (the PAT). */
  readonly secrets?: readonly string[] | undefined;
}

const REASONS: Readonly<Record<number, string>> = {
  200: "OK",
  201: "Created",
  202: "Accepted",
  204: "No Content",
  301: "Moved Permanently",
  302: "Found",
  304: "Not Modified",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  409: "Conflict",
  410: "Gone",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** What `gh api -i` prints as the status line. */
export function statusLine(status: number): string {
  const reason = REASONS[status];
  return reason === undefined ? `HTTP/1.1 ${status}` : `HTTP/1.1 ${status} ${reason}`;
}

function intHeader(headers: AoTraceResponse["headers"], name: string): number | undefined {
  const raw = headers?.[name];
  if (raw === undefined || raw.trim() === "") return undefined;
  const parsed = Number.parseInt(raw, 10);
  return Number.isFinite(parsed) ? parsed : undefined;
}

function endpointOf(path: string): string {
  return path.replace(/^\/+/, "");
}

/** `T` whose optional fields may also be given as undefined. */
type Loose<T> = { [K in keyof T]: undefined extends T[K] ? T[K] | undefined : T[K] };

/** Copies only defined values, so JSON.stringify writes no `undefined`/null placeholders. */
function compact<T extends object>(row: Loose<T>): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) if (value !== undefined) out[key] = value;
  return out as T;
}

export function buildAoTraceRow(input: AoTraceRowInput): AoTraceRow {
  const secrets = input.secrets ?? [];
  const scrub = (text: string | undefined) => (text === undefined ? undefined : scrubText(text, secrets));
  const { requests } = input;
  const first = requests.first;
  const last = requests.last;
  const args = input.args;
  let operation: string;
  let endpoint: string | undefined;
  let method: string | undefined;
  let ok: boolean;
  if (args !== undefined) {
    operation = input.operation ?? ghOperation(args);
    endpoint = ghApiEndpoint(args);
    method = args[0] === "api" ? (first?.method.toUpperCase() ?? ghApiMethod(args)) : undefined;
    ok = input.exitCode === 0 && input.signal === undefined;
  } else {
    const graphql = first !== undefined && isGraphql(first);
    operation =
      input.operation ?? (first === undefined ? "gh.api" : ghOperation(["api", endpointOf(first.path)]));
    endpoint = first === undefined ? undefined : graphql ? "graphql" : endpointOf(first.path);
    method = first?.method.toUpperCase();
    ok = last !== undefined && last.status < 400 && input.signal === undefined;
  }
  const headers = last?.headers;
  const graphqlHeaders = requests.lastGraphql?.headers;
  const graphqlReset = intHeader(graphqlHeaders, "x-ratelimit-reset");
  return compact<AoTraceRow>({
    timestamp: new Date(input.finishedAt).toISOString(),
    component: input.component,
    operation: scrubText(operation, secrets),
    projectId: scrub(input.projectId),
    sessionId: scrub(input.sessionId),
    cwd: scrub(input.cwd),
    args: args === undefined ? [] : redactArgs(args, secrets),
    endpoint: scrub(endpoint),
    method,
    ok,
    exitCode: input.exitCode,
    signal: input.signal,
    durationMs: Math.max(0, Math.round(input.durationMs)),
    stdoutBytes: input.stdoutBytes ?? 0,
    stderrBytes: input.stderrBytes ?? 0,
    statusLine: last === undefined ? undefined : statusLine(last.status),
    httpStatus: last?.status,
    etag: headers?.etag,
    rateLimitLimit: intHeader(headers, "x-ratelimit-limit"),
    rateLimitRemaining: intHeader(headers, "x-ratelimit-remaining"),
    rateLimitReset: intHeader(headers, "x-ratelimit-reset"),
    rateLimitResource: headers?.["x-ratelimit-resource"],
    graphqlCost: requests.graphqlCount > 0 ? requests.graphqlCost : undefined,
    graphqlRemaining: intHeader(graphqlHeaders, "x-ratelimit-remaining"),
    graphqlResetAt: graphqlReset === undefined ? undefined : new Date(graphqlReset * 1000).toISOString(),
    broker: {
      ...(input.invocationId === undefined ? {} : { invocationId: input.invocationId }),
      requests: requests.count,
      pointsCharged: requests.pointsCharged,
      waitedMs: Math.round(requests.waitedMs),
      cache: requests.cache,
    },
  });
}

/** Lines at most this long are written with one atomic write(2) even to a pipe (Linux PIPE_BUF). */
export const PIPE_BUF_BYTES = 4096;
const ARG_KEEP_CHARS = 200;

function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * The row as one JSONL line (with "\n"). Rows longer than PIPE_BUF (a `gh api graphql -f query=…`
 * with a long query) get their long arguments shortened, so concurrent appenders never interleave;
 * a row that is still too long is written whole (correctness over atomicity).
 */
export function serializeAoTraceRow(row: AoTraceRow, maxBytes = PIPE_BUF_BYTES): string {
  const line = `${JSON.stringify(row)}\n`;
  if (byteLength(line) <= maxBytes) return line;
  const args = row.args.map((arg) =>
    arg.length > ARG_KEEP_CHARS
      ? `${arg.slice(0, ARG_KEEP_CHARS)}…[+${arg.length - ARG_KEEP_CHARS} chars]`
      : arg,
  );
  return `${JSON.stringify({ ...row, args })}\n`;
}
