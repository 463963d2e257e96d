/**
 * The one place where any failure becomes an HTTP answer, always in GitHub's own error shape so gh
 * prints it the way it prints GitHub's (`{"message", "documentation_url", "status"}`), and for GraphQL
 * rate limiting as GitHub does it: 200 with `errors[{type: "RATE_LIMITED"}]`. Unknown failures
 * become a generic 502 whose message carries no internals and no secrets.
 */
import { isAoError } from "../../common/index.js";
import { BudgetErrors } from "../budget/index.js";

export interface ErrorReply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

const DOCS = "https://docs.github.com/rest";

export function githubError(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): ErrorReply {
  return {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
    body: Buffer.from(JSON.stringify({ message, documentation_url: DOCS, status: String(status) })),
  };
}

export interface RateLimitedContext {
  readonly graphql: boolean;
  readonly resetEpochSeconds?: number | undefined;
  readonly message: string;
  /** Sent as `retry-after` (seconds). */
  readonly retryAfterSeconds?: number | undefined;
  /** 429 for the broker's pace or fair share, GitHub's secondary-limit status. @defaultValue 403 */
  readonly status?: 403 | 429 | undefined;
}

export function rateLimitedReply(context: RateLimitedContext): ErrorReply {
  // A secondary-limit answer (429) says nothing about the primary bucket, as GitHub's does not.
  const headers: Record<string, string> = context.status === 429 ? {} : { "x-ratelimit-remaining": "0" };
  if (context.resetEpochSeconds) headers["x-ratelimit-reset"] = String(context.resetEpochSeconds);
  if (context.retryAfterSeconds) headers["retry-after"] = String(Math.ceil(context.retryAfterSeconds));
  if (context.graphql) {
    return {
      status: 200,
      headers: { "content-type": "application/json; charset=utf-8", ...headers },
      body: Buffer.from(JSON.stringify({ errors: [{ type: "RATE_LIMITED", message: context.message }] })),
    };
  }
  return githubError(context.status ?? 403, context.message, headers);
}

/** Maps an error from the pipeline to GitHub's shape. `graphql` selects the rate-limit form. */
export function errorReply(error: unknown, context: { graphql: boolean }): ErrorReply {
  if (isAoError(error)) {
    const data = (error.data ?? {}) as {
      rateLimited?: boolean;
      resetEpochSeconds?: number;
      retryAfterSeconds?: number;
      reset?: number;
      resource?: string;
      waitedMs?: number;
      reason?: string;
      retryAfter?: number;
    };
    if (error.code === BudgetErrors.AO_ERR_BUDGET_EXHAUSTED) {
      // The caller's deadline passed while the shared budget was spent: GitHub's own rate-limit
      // answer, so gh prints it as it would print GitHub's, with the broker's reason in the message.
      const resetAt = data.reset ? new Date(data.reset * 1000).toISOString() : "the end of the window";
      const waited = data.waitedMs ? ` after waiting ${Math.round(data.waitedMs / 1000)}s` : "";
      if (data.reason === "pace" || data.reason === "fair-share") {
        // The window is not spent, the broker paces it: GitHub's secondary-limit answer (429,
        // retry-after), so gh and scripts back off for the seconds named instead of until the reset.
        return rateLimitedReply({
          graphql: context.graphql,
          status: 429,
          retryAfterSeconds: data.retryAfter,
          message: `You have exceeded a secondary rate limit: ao-broker paces the shared ${data.resource ?? "GitHub"} budget among active sessions${waited}; retry after ${data.retryAfter ?? 1}s.`,
        });
      }
      return rateLimitedReply({
        graphql: context.graphql,
        resetEpochSeconds: data.reset,
        retryAfterSeconds: data.retryAfter,
        message: `API rate limit exceeded: ao-broker's shared ${data.resource ?? "GitHub"} budget is spent${waited}; it resets at ${resetAt}.`,
      });
    }
    if (data.rateLimited) {
      return rateLimitedReply({
        graphql: context.graphql,
        resetEpochSeconds: data.resetEpochSeconds,
        message: error.message,
      });
    }
    const extra: Record<string, string> = {};
    if (data.retryAfterSeconds) extra["retry-after"] = String(Math.ceil(data.retryAfterSeconds));
    return githubError(error.httpStatus ?? 502, error.message, extra);
  }
  return githubError(502, "ao-broker could not complete the request upstream");
}
