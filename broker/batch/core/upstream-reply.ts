/**
 * Reads GitHub's reply to a merged query before splitting it. Three outcomes:
 * - `ok`: a 200 with `data` (an object, or null after a failed non-null root field): split it
 *   (split-response.ts decides per member).
 * - `rate-limited`: the token is out of budget (429; 403 with `retry-after` or
 *   `x-ratelimit-remaining: 0`; or a 200 whose only errors are `type: "RATE_LIMITED"`). Every member
 *   alone would get this same answer, and retrying each alone would only spend more, so the reply
 *   goes to every member as is.
 *   (https://docs.github.com/en/graphql/overview/rate-limits-and-node-limits-for-the-graphql-api)
 * - `rejected`: anything else (HTTP error, top-level errors and no data, a body that is not JSON):
 *   the members are retried alone, each through the upstream queue.
 */
import { isJsonObject } from "./graphql-response.js";

export type UpstreamVerdict = "ok" | "rate-limited" | "rejected";

export interface ReplyFacts {
  readonly status: number;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The parsed body, or undefined when it was not JSON. */
  readonly json: unknown;
}

export function judgeUpstreamReply(reply: ReplyFacts): UpstreamVerdict {
  if (reply.status === 429) return "rate-limited";
  if (
    reply.status === 403 &&
    (reply.headers["retry-after"] || reply.headers["x-ratelimit-remaining"] === "0")
  ) {
    return "rate-limited";
  }
  if (reply.status !== 200 || !isJsonObject(reply.json)) return "rejected";
  const { data, errors } = reply.json;
  if (isJsonObject(data)) return "ok";
  if (
    Array.isArray(errors) &&
    errors.length > 0 &&
    errors.every((e) => isJsonObject(e) && e.type === "RATE_LIMITED")
  ) {
    return "rate-limited";
  }
  // `data: null` is an executed query whose non-null root failed: the splitter says who retries.
  return data === null ? "ok" : "rejected";
}
