/**
 * GitHub's error bodies, word for word, for everything that must look like GitHub when it fails:
 * the simulator's answers and the broker's own refusals (so gh prints them as it prints
 * GitHub's). REST errors are `{message, documentation_url, status?}`
 * (https://docs.github.com/en/rest/using-the-rest-api/troubleshooting-the-rest-api); a spent
 * GraphQL budget is a 200 with `errors[{type: "RATE_LIMITED"}]`
 * (https://docs.github.com/en/graphql/overview/rate-limits-and-node-limits-for-the-graphql-api).
 */

export const GITHUB_DOCS = {
  rest: "https://docs.github.com/rest",
  graphql: "https://docs.github.com/graphql",
  primaryRateLimit:
    "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limits",
  secondaryRateLimit:
    "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
} as const;

/** What gh prints for a spent primary budget (captures rl_rest_run_list, rl_graphql_pr_view). */
export function primaryRateLimitMessage(userId: number): string {
  return `API rate limit exceeded for user ID ${userId}.`;
}

/** GitHub's secondary-limit text; clients detect it by the words "secondary rate limit". */
export const SECONDARY_RATE_LIMIT_MESSAGE =
  "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID";

export interface RestErrorBody {
  readonly message: string;
  readonly documentation_url: string;
  readonly status?: string;
  readonly errors?: readonly unknown[];
}

export function restErrorBody(
  message: string,
  options: { documentationUrl?: string; status?: number; errors?: readonly unknown[] } = {},
): RestErrorBody {
  return {
    message,
    documentation_url: options.documentationUrl ?? GITHUB_DOCS.rest,
    ...(options.errors ? { errors: options.errors } : {}),
    ...(options.status !== undefined ? { status: String(options.status) } : {}),
  };
}

export function secondaryRateLimitBody(requestId: string): RestErrorBody {
  return restErrorBody(`${SECONDARY_RATE_LIMIT_MESSAGE} ${requestId}.`, {
    documentationUrl: GITHUB_DOCS.secondaryRateLimit,
  });
}

export interface GraphQLRateLimitedBody {
  readonly errors: readonly [
    { readonly type: "RATE_LIMITED"; readonly code: string; readonly message: string },
  ];
}

export function graphqlRateLimitedBody(userId: number): GraphQLRateLimitedBody {
  return {
    errors: [{ type: "RATE_LIMITED", code: "graphql_rate_limit", message: primaryRateLimitMessage(userId) }],
  };
}

/** True for a 403/429 body whose message names a secondary limit (how octokit tells them apart). */
export function isSecondaryRateLimitMessage(message: string): boolean {
  return /secondary rate limit/i.test(message);
}
