export { extractGraphQLRateLimit, type GraphQLRateLimit } from "./core/graphql-rate-limit.js";
export { AGED_PRIORITY, BULLMQ_PRIORITY, promoteAt } from "./core/priority.js";
export {
  backoffDelay,
  classifyResponse,
  parseRetryAfter,
  type ResponseVerdict,
  shouldRetry,
} from "./core/retry-policy.js";
export { endpointKey, type RequestKind, secondaryPoints } from "./core/secondary-points.js";
export {
  isStaleWait,
  PACE_LIMITS,
  type PacedWait,
  type PaceLimit,
  parseWait,
  windowSum,
} from "./core/secondary-window.js";
export { type UpstreamErrorCode, UpstreamErrors } from "./errors.js";
export {
  UpstreamClient,
  type UpstreamClientOptions,
  type UpstreamRequest,
  type UpstreamResponse,
} from "./upstream-client.js";
export type { Lane, UpstreamJob, UpstreamResult } from "./upstream-job.js";
export {
  DEFAULT_UPSTREAM_POLICY,
  type KeepJobs,
  resolveUpstreamPolicy,
  type UpstreamPolicy,
  type UpstreamPolicyInput,
} from "./upstream-policy.js";
export {
  GITHUB_SECONDARY,
  type SecondaryCount,
  type SecondaryLimitsView,
  UpstreamQueue,
  type UpstreamQueueOptions,
  type UpstreamQueueStats,
} from "./upstream-queue.js";
