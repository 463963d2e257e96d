/**
 * Sends one replayed request through an arm and records it: latency, outcome, the cache label the
 * broker (x-ao-broker-cache) or the proxy (x-cache-mode) put on it, and the facts it stated for the
 * staleness judge. Shared by every arm so that what is measured cannot differ between them.
 */
import { createHash } from "node:crypto";
import { type AnswerObservation, queryKeyText } from "./core/answer-breakdown.js";
import { classifyAnswer } from "./core/answer-kind.js";
import { extractFacts } from "./core/facts.js";
import { type HttpTransport, parseJson } from "./http-transport.js";
import type { PreparedRequest, ReplayAnswer } from "./replay/replay-types.js";
import type { StepRecorder } from "./step-recorder.js";

export interface AgentRequestPath {
  readonly transport: HttpTransport;
  /** Where agents' requests go (simulator, proxy or broker gateway), no trailing slash. */
  readonly baseUrl: string;
  readonly recorder: StepRecorder;
  /** The simulator's clock (epoch ms), for staleness. */
  readonly now: () => number;
}

/** `x-ao-broker-wait-ms`: what the broker says this request waited by design (absent: unknown). */
function designedWait(headers: Readonly<Record<string, string>>): number | undefined {
  const value = headers["x-ao-broker-wait-ms"];
  const n = value === undefined ? Number.NaN : Number(value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

const sha1 = (data: string | Buffer) => createHash("sha1").update(data).digest("base64");

/** `x-ao-broker-cost`, absent or malformed → 0. */
function brokerCost(headers: Readonly<Record<string, string>>): number {
  const n = Number(headers["x-ao-broker-cost"]);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/** What the per-answer breakdown needs of one answer (core/answer-breakdown.ts). */
export function answerObservation(
  request: PreparedRequest,
  answer: { readonly headers: Readonly<Record<string, string>>; readonly body: Buffer },
): AnswerObservation {
  return {
    key: sha1(queryKeyText(request.method, request.path, request.graphql)),
    bodyHash: sha1(answer.body),
    graphql: request.graphql !== undefined,
    cost: brokerCost(answer.headers),
    cacheLabel: answer.headers["x-ao-broker-cache"],
    reason: answer.headers["x-ao-broker-upstream-reason"],
  };
}

/** GraphQL mutations that create content, as GitHub counts them for its 80/min and 500/h limits. */
const CONTENT_CREATING =
  /\b(createPullRequest|addComment|addPullRequestReview|createIssue|addPullRequestReviewComment|addPullRequestReviewThread)\s*\(/;

/** A write: a REST method other than GET/HEAD, or a GraphQL mutation; with its content-creating flag. */
export function writeKind(request: PreparedRequest): { contentCreating: boolean } | undefined {
  if (request.graphql) {
    if (!/^\s*mutation\b/.test(request.graphql.query)) return undefined;
    return { contentCreating: CONTENT_CREATING.test(request.graphql.query) };
  }
  if (request.method === "GET" || request.method === "HEAD") return undefined;
  // REST POSTs that create issues, comments or reviews; a branch delete or a merge does not.
  return {
    contentCreating:
      request.method === "POST" && /\/(issues|pulls)(\/\d+\/(comments|reviews))?$/.test(request.path),
  };
}

export async function sendAgentRequest(
  path: AgentRequestPath,
  request: PreparedRequest,
  authorization: string,
  reader?: string,
): Promise<ReplayAnswer> {
  const headers: Record<string, string> = { ...request.headers, authorization: `token ${authorization}` };
  if (headers["accept"] === "") delete headers["accept"];
  const answer = await path.transport.send({
    url: `${path.baseUrl}${request.path}`,
    method: request.method,
    headers,
    body: request.body,
  });
  const json = parseJson(answer.body, answer.headers);
  const kind = classifyAnswer(answer.status, json, request.graphql !== undefined);
  const facts = kind.ok
    ? extractFacts(
        request.operation,
        request.subject,
        json,
        json === undefined ? answer.body.toString("utf8") : undefined,
      )
    : [];
  const write = writeKind(request);
  await path.recorder.recordRequest({
    operation: request.operation,
    status: answer.status,
    latencyRealMs: answer.latencyMs,
    ok: kind.ok,
    rateLimit: kind.rateLimit,
    cacheLabel: answer.headers["x-ao-broker-cache"] ?? answer.headers["x-cache-mode"],
    facts,
    designedWaitMs: designedWait(answer.headers),
    receivedAt: path.now(),
    reader,
    write,
    graphql: request.graphql,
    // Reads only: a write is never "the same answer again".
    ...(path.recorder.explaining && !write ? { answer: answerObservation(request, answer) } : {}),
  });
  return {
    status: answer.status,
    headers: answer.headers,
    json,
    rateLimited: kind.rateLimit !== null,
    ok: kind.ok,
  };
}
