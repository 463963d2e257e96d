/**
 * The ceiling: the most sessions ANY broker could carry on one token, from the profile's own model
 * of an agent's life (docs/benchmark-method.md, "The workload"). However well a broker caches,
 * coalesces and batches, three things it cannot avoid:
 *
 * - the writes: every `gh pr create` and reply comment is a content-creating request (GitHub allows
 *   500 per hour and 80 per minute on a token), every write costs at least 1 point or 1 request;
 * - the reads that carry new information at least once: an issue read per task, a failed run's
 *   jobs and log per CI failure;
 * - the floor of polling at the staleness bound: without webhooks, each open PR must be looked at
 *   once per bound (30 s), at best 25 PRs in one 1-point aliased query (AO's enrichment shape).
 *
 * The expected life comes from the profile's phase lengths and probabilities; per session-hour
 * figures are per-life counts ÷ the life's length. Each limit ÷ its per-session-hour need gives the
 * sessions that limit allows; the smallest binds. Pure.
 */
import { rangeMean as mean, type Profile } from "./profile-schema.js";
import type { CeilingReport } from "./report-types.js";

export interface CeilingLimits {
  /** @defaultValue 5000 */
  readonly graphqlPointsPerHour: number;
  /** @defaultValue 5000 */
  readonly restRequestsPerHour: number;
  /** @defaultValue 500 */
  readonly contentCreatingPerHour: number;
  /** @defaultValue 80 */
  readonly contentCreatingPerMinute: number;
  /** Every open PR looked at once per this many seconds. @defaultValue 30 */
  readonly stalenessBoundS: number;
  /** PRs one 1-point query can cover. @defaultValue 25 */
  readonly prsPerQuery: number;
}

export const DEFAULT_CEILING_LIMITS: CeilingLimits = Object.freeze({
  graphqlPointsPerHour: 5000,
  restRequestsPerHour: 5000,
  contentCreatingPerHour: 500,
  contentCreatingPerMinute: 80,
  stalenessBoundS: 30,
  prsPerQuery: 25,
});

const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;

/** One life's expected length (s), its PR-open time (s) and its counts of writes and reads. */
export interface LifeModel {
  readonly lifeS: number;
  readonly prOpenS: number;
  readonly ciFailures: number;
  readonly reviewRejections: number;
  readonly contentCreating: number;
  /** Writes that are not content-creating: the merge (GraphQL) and the branch delete (REST). */
  readonly graphqlWrites: number;
  readonly restWrites: number;
}

export function lifeModel(profile: Profile): LifeModel | undefined {
  const agents = profile.agents;
  if (!agents) return undefined;
  const world = profile.world;
  const ciS = Math.max(0, ...world.ciJobs.map((j) => j.startAfterS + j.durationS));
  const workS = mean(agents.workS);
  const fixS = mean(agents.fixS);
  const reviewS = mean(world.reviewDelayS);
  const p1 = world.ciFailureRate;
  const pf = Math.min(0.99, world.ciFailureRateAfterFix);
  // CI rounds that fail after the first push, then after each fix (geometric in pf).
  const failsAfterFirst = p1 / (1 - pf);
  const failsAfterFix = pf / (1 - pf);
  const a1 = world.approveRate;
  const af = Math.max(0.01, world.approveRateAfterFix);
  const rejections = (1 - a1) / af;
  const failedRound = ciS + fixS;
  const reviewRound = fixS + ciS + failsAfterFix * failedRound + reviewS;
  const prOpenS = ciS + failsAfterFirst * failedRound + reviewS + rejections * reviewRound;
  return {
    lifeS: workS + prOpenS,
    prOpenS,
    ciFailures: failsAfterFirst + rejections * failsAfterFix,
    reviewRejections: rejections,
    contentCreating: 1 + agents.replyToReviewRate * rejections,
    graphqlWrites: 1,
    restWrites: 1,
  };
}

/**
 * The odds for a session found part-way through its life at t = 0, as the steady state mixes
 * them: a session in CI may be on a push after a fix (which fails less often), one awaiting a
 * review may be on a second round (which approves more often). The share of all pushes that fail
 * is CI failures ÷ pushes per life; the share of reviews that approve is 1 ÷ reviews per life.
 * The first round's odds alone (0.3 against 0.23 for the active profile) made a step's first
 * minutes fail CI more often than its next ones (docs/decisions/0030).
 */
export function midLifeOdds(profile: Profile): { readonly ciFailure: number; readonly approve: number } {
  const life = lifeModel(profile);
  if (!life) return { ciFailure: profile.world.ciFailureRate, approve: profile.world.approveRate };
  const pushes = 1 + life.ciFailures + life.reviewRejections;
  return { ciFailure: life.ciFailures / pushes, approve: 1 / (1 + life.reviewRejections) };
}

export function computeCeiling(
  profile: Profile,
  limits: CeilingLimits = DEFAULT_CEILING_LIMITS,
): CeilingReport {
  const life = lifeModel(profile);
  const pollsPerHour = 3600 / limits.stalenessBoundS;
  let contentCreating: number;
  let graphqlPoints: number;
  let restRequests: number;
  const derivation: string[] = [];
  if (life) {
    const lifeH = life.lifeS / 3600;
    const openShare = life.prOpenS / life.lifeS;
    contentCreating = life.contentCreating / lifeH;
    const pollPoints = (openShare * pollsPerHour) / limits.prsPerQuery;
    // Per life: 1 issue read, every write at 1 point (create, replies, merge).
    const lifePoints = 1 + life.contentCreating + life.graphqlWrites;
    graphqlPoints = lifePoints / lifeH + pollPoints;
    // Per life: the branch delete; per CI failure the failed jobs and their log.
    restRequests = (life.restWrites + 2 * life.ciFailures) / lifeH;
    derivation.push(
      `expected life ${Math.round(life.lifeS)} s (PR open ${Math.round(openShare * 100)} % of it), ${round(life.ciFailures)} CI failures, ${round(life.reviewRejections)} review rejections`,
      `content-creating per life: 1 PR + ${round(life.contentCreating - 1)} replies = ${round(life.contentCreating)}`,
      `GraphQL floor: ${round(lifePoints)} points per life (issue read + writes at 1 point) + polling every open PR each ${limits.stalenessBoundS} s at ${limits.prsPerQuery} PRs per point (${round(pollPoints)} points/h)`,
      `REST floor: the branch delete + failed jobs and log per CI failure = ${round(life.restWrites + 2 * life.ciFailures)} per life`,
    );
  } else {
    // Placeholder sessions: nothing is written, the PR is open all the time.
    contentCreating = 0;
    graphqlPoints = pollsPerHour / limits.prsPerQuery;
    restRequests = 0;
    derivation.push(
      `no agents: every PR polled each ${limits.stalenessBoundS} s at ${limits.prsPerQuery} PRs per point`,
    );
  }
  const allow = (limit: number, need: number) =>
    need > 0 ? Math.floor(limit / need) : Number.POSITIVE_INFINITY;
  const byLimit: Record<string, number> = {
    "content creation 500/h": allow(limits.contentCreatingPerHour, contentCreating),
    "content creation 80/min": allow(limits.contentCreatingPerMinute * 60, contentCreating),
    "GraphQL 5,000 points/h": allow(limits.graphqlPointsPerHour, graphqlPoints),
    "REST 5,000 requests/h": allow(limits.restRequestsPerHour, restRequests),
  };
  let binding = "";
  let sessions = Number.POSITIVE_INFINITY;
  for (const [name, n] of Object.entries(byLimit))
    if (n < sessions) {
      sessions = n;
      binding = name;
    }
  return {
    sessions,
    binding,
    perSessionHour: {
      contentCreating: round(contentCreating, 3),
      graphqlPoints: round(graphqlPoints, 3),
      restRequests: round(restRequests, 3),
    },
    byLimit: Object.fromEntries(Object.entries(byLimit).filter(([, n]) => Number.isFinite(n))),
    derivation,
  };
}
