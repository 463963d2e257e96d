/**
 * The distinct GraphQL requests gh 2.23 sends (test/fixtures/gh-2.23-traffic), one per query text.
 * gh sends no operationName (each document holds one operation); `operationName` here is the name
 * inside the document, which tests may also send to check that naming it changes nothing.
 */
import { type CapturedGraphQL, capturedGraphQLRequests } from "../../../../support/traffic.js";

export function distinctCapturedQueries(): CapturedGraphQL[] {
  const byText = new Map<string, CapturedGraphQL>();
  for (const request of capturedGraphQLRequests()) {
    if (!byText.has(request.query))
      byText.set(request.query, { ...request, variables: request.variables ?? {} });
  }
  return [...byText.values()];
}

export function documentOperationName(request: CapturedGraphQL): string | undefined {
  return request.operationName === "(anonymous)" ? undefined : request.operationName;
}
