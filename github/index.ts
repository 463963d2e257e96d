export {
  GITHUB_DOCS,
  type GraphQLRateLimitedBody,
  graphqlRateLimitedBody,
  isSecondaryRateLimitMessage,
  primaryRateLimitMessage,
  type RestErrorBody,
  restErrorBody,
  SECONDARY_RATE_LIMIT_MESSAGE,
  secondaryRateLimitBody,
} from "./core/error-shapes.js";
export {
  type ConnectionCost,
  type CostError,
  type CostInput,
  computeQueryCost,
  effectiveVariables,
  MAX_NODE_LIMIT,
  MAX_PAGE_SIZE,
  pointsForRequests,
  type QueryCost,
  selectOperation,
} from "./core/graphql-cost.js";
export { type RateLimitFields, readRateLimitFields } from "./core/graphql-rate-limit-object.js";
export { validateGitHubDocument } from "./core/graphql-validation.js";
export {
  isFreeRestPath,
  parseRateLimitHeaders,
  type RateLimitResource,
  type RateLimitSnapshot,
  rateLimitHeaders,
  restResourceForPath,
} from "./core/rate-limit-headers.js";
export { loadGitHubSchema } from "./schema.js";
