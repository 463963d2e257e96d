/**
 * Sends ONE caller's query upstream on its own: members GitHub would refuse, members that found no
 * partner, and members whose merged answer could not be split. The broker's `rateLimit` probe is
 * injected (unless disabled) and stripped from the answer; when GitHub refuses the probe itself,
 * the query is sent again untouched. The answer is GitHub's, byte for byte after JSON
 * normalization.
 */

import type { BatchOutcome, SubmitOptions, UpstreamGraphQLRequest, UpstreamReply } from "./batch-types.js";
import type { AloneReason } from "./core/alone-reason.js";
import { isJsonObject, type RateLimitData } from "./core/graphql-response.js";
import { injectRateLimit, stripRateLimit } from "./core/rate-limit-injection.js";
import type { PreparedMember } from "./prepare-member.js";

export function bodyText(body: string | Uint8Array): string {
  return typeof body === "string" ? body : new TextDecoder().decode(body);
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The upstream headers minus those that described the upstream body, which was rewritten. */
export function answerHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name !== "content-length" && name !== "etag") out[name] = value;
  }
  return out;
}

/** One upstream query as the scheduler accounts for it. */
export interface UpstreamAccount {
  readonly request: UpstreamGraphQLRequest;
  readonly status: number;
  readonly rateLimit: RateLimitData | undefined;
  readonly computedCost: number | undefined;
  /** Points this query is charged with. */
  readonly spent: number;
}

export interface AloneContext {
  readonly send: (request: UpstreamGraphQLRequest) => Promise<UpstreamReply>;
  readonly injectRateLimit: boolean;
  readonly now: () => number;
  readonly account: (entry: UpstreamAccount) => void;
}

export interface AloneJob {
  readonly member: PreparedMember;
  readonly options: SubmitOptions;
  readonly submittedAt: number;
  readonly kind: "alone" | "retry";
  /** Overrides the member's own reason (e.g. "no-partner"). */
  readonly reason?: AloneReason | undefined;
}

export async function sendAlone(context: AloneContext, job: AloneJob): Promise<BatchOutcome> {
  const { member, options } = job;
  const aloneReason = job.reason ?? (member.eligible ? undefined : member.reason);
  const injection = context.injectRateLimit
    ? injectRateLimit(member.source, {
        operationName: member.operationName,
        document: member.eligible ? member.document : undefined,
      })
    : undefined;
  const base = {
    variables: member.variables,
    operationName: member.operationName,
    priority: options.priority ?? "interactive",
    mergeKey: options.mergeKey ?? "",
    headers: options.headers ?? {},
    memberIds: [member.id],
    kind: job.kind,
  } as const;
  const sentAt = context.now();
  let request: UpstreamGraphQLRequest = { ...base, query: injection?.query ?? member.source };
  let reply = await context.send(request);
  let text = bodyText(reply.body);
  let json = parseJson(text);
  let body = text;
  let rateLimit: RateLimitData | undefined;
  if (injection && json !== undefined) {
    const stripped = stripRateLimit(injection, json);
    if (stripped.injectionRefused) {
      // GitHub refused the text we added (e.g. a GHES without rateLimit): resend it untouched.
      context.account({
        request,
        status: reply.status,
        rateLimit: undefined,
        computedCost: member.cost,
        spent: 0,
      });
      request = { ...base, query: member.source };
      reply = await context.send(request);
      text = bodyText(reply.body);
      json = parseJson(text);
      body = text;
    } else {
      body = JSON.stringify(stripped.body);
      rateLimit = stripped.rateLimit;
    }
  }
  const answered = reply.status === 200 && isJsonObject(json) && isJsonObject(json.data);
  const cost = rateLimit?.cost ?? (answered ? member.cost : undefined);
  context.account({ request, status: reply.status, rateLimit, computedCost: member.cost, spent: cost ?? 0 });
  return {
    response: { status: reply.status, headers: answerHeaders(reply.headers), body },
    costShare: cost ?? 0,
    costSource: rateLimit ? "rateLimit" : cost !== undefined ? "computed" : "none",
    batched: false,
    batchSize: 1,
    waitedMs: sentAt - job.submittedAt,
    retriedAlone: false,
    aloneReason,
  };
}
