/**
 * What callers submit to the upstream queue and what they get back, and the form a job takes in
 * Redis. Invariant: a job in Redis never carries credentials — Authorization is dropped here, the
 * PAT is added by UpstreamClient at send time — and its body travels as base64 inside the job,
 * which BullMQ deletes shortly after the job finishes (removeOnComplete/removeOnFail).
 */
import { AoError } from "../../common/index.js";
import type { RateLimitResource, RateLimitSnapshot } from "../../github/index.js";
import { parseRateLimitHeaders } from "../../github/index.js";
import { PRIORITY_CLASSES, type PriorityClass } from "../pipeline/types.js";
import { extractGraphQLRateLimit, type GraphQLRateLimit } from "./core/graphql-rate-limit.js";
import { isReadMethod, type RequestKind } from "./core/secondary-points.js";
import { UpstreamErrors } from "./errors.js";

export interface UpstreamJob {
  /** The gateway's request id (logs, traces). */
  readonly requestId: string;
  readonly sessionId: string;
  /** Upper-case HTTP method. */
  readonly method: string;
  /** Path and query as GitHub sees it. */
  readonly path: string;
  /** Lower-case names to forward; Authorization is never forwarded. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly body?: Buffer | undefined;
  readonly kind: RequestKind;
  /** Primary bucket the request draws on (core, graphql, search…). */
  readonly resource: RateLimitResource;
  readonly priority: PriorityClass;
  /** Safe to send twice. @defaultValue true for GET/HEAD/OPTIONS and GraphQL queries */
  readonly idempotent?: boolean | undefined;
  /** Changes GitHub (REST POST/PATCH/PUT/DELETE, a GraphQL mutation): the serial write lane. @defaultValue !read method for REST, false for GraphQL */
  readonly mutation?: boolean | undefined;
  /** Creates content (PR, issue, comment, review): counted against 80/min and 500/h. @defaultValue false */
  readonly contentCreation?: boolean | undefined;
  /**
   * How many content-creating requests it counts as (a merged mutation: each member that creates
   * content, decision 0023). Only with contentCreation. @defaultValue 1
   */
  readonly contentCreations?: number | undefined;
  /**
   * Costs nothing at GitHub (GET /rate_limit): not held when its bucket is known spent, and its
   * answer's `remaining: 0` does not hold the bucket (GitHub answers it regardless). @defaultValue false
   */
  readonly free?: boolean | undefined;
  /** Epoch ms; past it the caller gets AO_ERR_UPSTREAM_DEADLINE instead of a late answer. */
  readonly deadlineAt: number;
  /** Per attempt. @defaultValue the client's timeout */
  readonly timeoutMs?: number | undefined;
}

export interface UpstreamResult {
  readonly requestId: string;
  readonly status: number;
  /** Lower-case names, as GitHub sent them (minus hop-by-hop and encoding headers). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** GitHub's x-ratelimit-* report from this answer. */
  readonly rateLimit: RateLimitSnapshot | undefined;
  /** Points GitHub charged for a GraphQL query, from the injected rateLimit object. */
  readonly graphqlCost: number | undefined;
  readonly graphqlRateLimit: GraphQLRateLimit | undefined;
  /** HTTP attempts made (retries after 5xx/timeouts included, reruns after a pause not). */
  readonly attempts: number;
  /** From submit() to the answer, minus the final attempt's upstream time. */
  readonly queueWaitMs: number;
  /** The final attempt, from sending to the last body byte. */
  readonly upstreamMs: number;
  /** Id of the broker instance whose worker sent it. */
  readonly worker: string;
}

export type Lane = "reads" | "writes";

/** The job as stored in BullMQ. */
export interface UpstreamJobData {
  readonly requestId: string;
  readonly sessionId: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string | undefined;
  readonly kind: RequestKind;
  readonly resource: string;
  readonly priority: PriorityClass;
  readonly idempotent: boolean;
  readonly mutation: boolean;
  readonly contentCreation: boolean;
  /** Content-creating requests it counts as, when more than one. */
  readonly contentCreations?: number | undefined;
  readonly free?: boolean | undefined;
  readonly deadlineAt: number;
  readonly timeoutMs?: number | undefined;
  readonly lane: Lane;
  /** Channel of the submitting broker instance. */
  readonly replyTo: string;
  readonly submittedAt: number;
}

/** What a worker publishes to the submitter. Bodies are base64. */
export type ReplyPayload =
  | {
      readonly id: string;
      readonly ok: true;
      readonly status: number;
      readonly headers: Record<string, string>;
      readonly body: string;
      readonly attempts: number;
      readonly upstreamMs: number;
      readonly worker: string;
    }
  | {
      readonly id: string;
      readonly ok: false;
      readonly code: string;
      readonly message: string;
      readonly data?: Record<string, unknown> | undefined;
      readonly attempts: number;
      readonly worker: string;
    };

const MAX_BODY_BYTES = 25 * 1024 * 1024;

function bad(message: string): AoError {
  return new AoError(UpstreamErrors.AO_ERR_UPSTREAM_BAD_REQUEST, `upstream job: ${message}`, {
    httpStatus: 500,
  });
}

export function toJobData(job: UpstreamJob, replyTo: string, submittedAt: number): UpstreamJobData {
  if (typeof job.method !== "string" || !/^[A-Z]{3,7}$/.test(job.method))
    throw bad("method must be upper-case");
  if (typeof job.path !== "string" || !job.path.startsWith("/") || /\s/.test(job.path)) {
    throw bad("path must start with / and contain no whitespace");
  }
  if (job.path.length > 8192) throw bad("path is longer than 8192 characters");
  if (job.kind !== "rest" && job.kind !== "graphql")
    throw bad(`kind must be rest or graphql, got ${String(job.kind)}`);
  if (!PRIORITY_CLASSES.includes(job.priority)) throw bad(`unknown priority ${String(job.priority)}`);
  if (!Number.isFinite(job.deadlineAt)) throw bad("deadlineAt must be epoch ms");
  if (typeof job.resource !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(job.resource))
    throw bad("bad resource");
  if (job.body !== undefined && (!Buffer.isBuffer(job.body) || job.body.length > MAX_BODY_BYTES)) {
    throw bad(`body must be a Buffer of at most ${MAX_BODY_BYTES} bytes`);
  }
  if (job.timeoutMs !== undefined && !(Number.isFinite(job.timeoutMs) && job.timeoutMs > 0)) {
    throw bad("timeoutMs must be positive");
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(job.headers ?? {})) {
    if (typeof value !== "string") throw bad(`header ${name} must be a string`);
    const lower = name.toLowerCase();
    if (lower !== "authorization" && lower !== "proxy-authorization" && lower !== "cookie")
      headers[lower] = value;
  }
  const mutation = job.mutation ?? (job.kind === "rest" ? !isReadMethod(job.method) : false);
  return {
    requestId: String(job.requestId).slice(0, 256),
    sessionId: String(job.sessionId).slice(0, 256),
    method: job.method,
    path: job.path,
    headers,
    body: job.body === undefined ? undefined : job.body.toString("base64"),
    kind: job.kind,
    resource: job.resource,
    priority: job.priority,
    idempotent: job.idempotent ?? !mutation,
    mutation,
    contentCreation: job.contentCreation ?? false,
    ...(job.contentCreation && job.contentCreations !== undefined && job.contentCreations > 1
      ? { contentCreations: Math.floor(job.contentCreations) }
      : {}),
    ...(job.free && !mutation ? { free: true } : {}),
    deadlineAt: job.deadlineAt,
    timeoutMs: job.timeoutMs,
    lane: mutation ? "writes" : "reads",
    replyTo,
    submittedAt,
  };
}

function httpStatusOf(code: string): number {
  if (code === UpstreamErrors.AO_ERR_UPSTREAM_TIMEOUT || code === UpstreamErrors.AO_ERR_UPSTREAM_DEADLINE)
    return 504;
  if (code === UpstreamErrors.AO_ERR_UPSTREAM_RATE_LIMITED) return 403;
  if (code === UpstreamErrors.AO_ERR_UPSTREAM_PACED) return 429;
  if (code === UpstreamErrors.AO_ERR_UPSTREAM_CLOSED) return 503;
  return 502;
}

/** A worker's reply as the caller sees it: a result, or the AoError it reported. */
export function resultFromReply(
  payload: ReplyPayload,
  data: UpstreamJobData,
  submittedAt: number,
  graphqlRateLimitAlias: string,
): UpstreamResult {
  if (!payload.ok) {
    throw new AoError(payload.code, payload.message, {
      httpStatus: httpStatusOf(payload.code),
      data: {
        ...payload.data,
        attempts: payload.attempts,
        worker: payload.worker,
        requestId: data.requestId,
      },
    });
  }
  const body = Buffer.from(payload.body, "base64");
  const rl = data.kind === "graphql" ? extractGraphQLRateLimit(body, graphqlRateLimitAlias) : undefined;
  return {
    requestId: data.requestId,
    status: payload.status,
    headers: payload.headers,
    body,
    rateLimit: parseRateLimitHeaders(payload.headers),
    graphqlCost: rl?.cost,
    graphqlRateLimit: rl,
    attempts: payload.attempts,
    queueWaitMs: Math.max(0, Date.now() - submittedAt - payload.upstreamMs),
    upstreamMs: payload.upstreamMs,
    worker: payload.worker,
  };
}
