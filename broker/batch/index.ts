/**
 * Cross-session GraphQL batching: the public face of broker/batch (see README.md and
 * docs/batching.md). The pure merger, splitter and cost sharing live in core/; the scheduler
 * decides when a group of queries leaves.
 */

export { BatchScheduler } from "./batch-scheduler.js";
export type {
  BatchClock,
  BatchOutcome,
  BatchResponse,
  BatchSchedulerOptions,
  BatchSchedulerStats,
  SubmitOptions,
  UpstreamGraphQLRequest,
  UpstreamObservation,
  UpstreamReply,
} from "./batch-types.js";
export { ALONE_REASONS, type AloneReason } from "./core/alone-reason.js";
export {
  BATCH_CLASSES,
  type BatchClass,
  type BatchClassInput,
  chooseBatchClass,
  DEFAULT_BATCH_BUDGETS_MS,
} from "./core/batch-class.js";
export { type CostShares, MICRO_POINTS_PER_POINT, shareCost } from "./core/cost-sharing.js";
export { type JsonObject, type RateLimitData, readRateLimit } from "./core/graphql-response.js";
export { LocationMap, type SourceLocation } from "./core/location-map.js";
export { type MemberPlan, type PlanResult, planMember } from "./core/member-plan.js";
export {
  MERGED_OPERATION_NAME,
  type MergedMember,
  type MergedQuery,
  type MergeMemberInput,
  type MergeOptions,
  mergeQueries,
  RATE_LIMIT_ALIAS,
  RATE_LIMIT_SELECTION,
} from "./core/merge-queries.js";
export {
  type InjectRateLimitOptions,
  injectRateLimit,
  type RateLimitInjection,
  type StrippedAnswer,
  stripRateLimit,
} from "./core/rate-limit-injection.js";
export {
  type MemberSplit,
  RETRY_REASONS,
  type RetryReason,
  type SplitResult,
  splitMergedResponse,
} from "./core/split-response.js";
export { judgeUpstreamReply, type ReplyFacts, type UpstreamVerdict } from "./core/upstream-reply.js";
export { type BatchErrorCode, BatchErrors } from "./errors.js";
export {
  MutationBatcher,
  type MutationBatcherOptions,
  type MutationBatcherStats,
  type MutationOutcome,
  type MutationSubmitOptions,
} from "./mutation-batcher.js";
export {
  type AloneMember,
  type BatchMemberInput,
  DEFAULT_MEMBER_CAPS,
  DocumentAnalysisCache,
  type EligibleMember,
  type MemberCaps,
  type PreparedMember,
  type PrepareMemberOptions,
  prepareMember,
} from "./prepare-member.js";
export { type RepeatKeyInput, RepeatTracker, type RepeatTrackerOptions } from "./repeat-tracker.js";
