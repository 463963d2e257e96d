/**
 * Workload profiles (bench/profiles/*.json), validated once with zod: unknown keys are refused so
 * a typo in a profile is an error, not a silent default. docs/benchmark-method.md explains every
 * field and where each number comes from. All durations are SIMULATED seconds.
 */
import { z } from "zod";

/** The gh commands an agent can run; each replays gh 2.23's captured requests (replay/gh-commands.ts). */
export const AGENT_COMMANDS = [
  "issue_view",
  "issue_view_comments",
  "pr_view",
  "pr_view_comments",
  "pr_view_json_checks",
  "pr_view_json_reviews",
  "pr_checks",
  "pr_list",
  "pr_diff",
  "run_list_branch",
  "api_pull_comments",
] as const;
export type AgentLoopCommand = (typeof AGENT_COMMANDS)[number];

const seconds = z.number().nonnegative();
const probability = z.number().min(0).max(1);
const range = z
  .strictObject({ min: seconds, max: seconds })
  .refine((r) => r.min <= r.max, { message: "min must not exceed max" });
/** The mean of a uniform draw from a profile's range. */
export function rangeMean(r: { readonly min: number; readonly max: number }): number {
  return (r.min + r.max) / 2;
}
const countRange = z
  .strictObject({ min: z.number().int().nonnegative(), max: z.number().int().nonnegative() })
  .refine((r) => r.min <= r.max, { message: "min must not exceed max" });

const loopSchema = z.strictObject({
  command: z.enum(AGENT_COMMANDS),
  /** Mean interval between runs while the phase lasts. */
  everyS: z.number().positive(),
  /** Each interval is drawn uniformly from everyS × [1 − jitter, 1 + jitter]. */
  jitter: z.number().min(0).max(0.9).default(0.3),
});
export type PhaseLoop = z.output<typeof loopSchema>;

const ciJobSchema = z.strictObject({
  name: z.string().min(1),
  startAfterS: seconds,
  durationS: z.number().positive(),
});

const phaseWeights = z.strictObject({
  work: z.number().nonnegative().default(0),
  ci: z.number().nonnegative().default(0),
  review: z.number().nonnegative().default(0),
  fix: z.number().nonnegative().default(0),
});

const agentSchema = z.strictObject({
  /** Where each session starts its life at t=0 (steady state from the first second). */
  initialPhase: phaseWeights,
  /** Share of sessions whose first read is `gh issue view --comments` (else `gh issue view`). */
  issueViewCommentsRate: probability,
  /** Working on the issue before the first push. */
  workS: range,
  /** Working on a fix (CI failure or requested changes) before pushing again. */
  fixS: range,
  /** How a session watches its CI after a push: weights of the three ways. */
  ciWatch: z.strictObject({
    prChecksWatch: z.number().nonnegative(),
    runWatch: z.number().nonnegative(),
    none: z.number().nonnegative(),
  }),
  /** Background gh commands per phase (what agents run between their main steps). */
  loops: z.strictObject({
    work: z.array(loopSchema).default([]),
    ci: z.array(loopSchema).default([]),
    review: z.array(loopSchema).default([]),
    fix: z.array(loopSchema).default([]),
  }),
  /** Calibration knob: every loop interval is multiplied by this. */
  loopIntervalScale: z.number().positive(),
  /** Share of review rounds the agent answers with `gh pr comment` after fixing. */
  replyToReviewRate: probability,
  /** After a rate-limit error the agent waits this long before its next command. */
  rateLimitBackoffS: seconds,
  /** Gives up a phase (and moves on) after this long, so a wrong answer cannot stall a session. */
  phaseTimeoutS: z.number().positive(),
});
export type AgentProfile = z.output<typeof agentSchema>;

export const profileSchema = z.strictObject({
  name: z.string().min(1).max(40),
  description: z.string(),
  /** Base seed of every session's random stream (the same in every arm). */
  seed: z.number().int().nonnegative().default(1),
  /** Expected requests per session-hour, for choosing the time compression (time-scale.ts). */
  requestsPerSessionHour: z.number().positive(),
  simulator: z.strictObject({
    /** GitHub's answer latency, simulated ms (fixed; no jitter, so added wait is exact). */
    latencyMs: z.number().nonnegative(),
  }),
  world: z.strictObject({
    /** Jobs of the CI workflow every push starts (queued, then running, then done). */
    ciJobs: z.array(ciJobSchema).min(1),
    /** Chance a first push's CI fails (one job, chosen at random). */
    ciFailureRate: probability,
    /** Chance a fix's CI fails again. */
    ciFailureRateAfterFix: probability,
    /** A reviewer answers this long after CI goes green. */
    reviewDelayS: range,
    /** Chance the first review approves (else it requests changes with review comments). */
    approveRate: probability,
    /** Chance a later review approves. */
    approveRateAfterFix: probability,
    reviewComments: countRange,
  }),
  /** Live agents, or null for placeholder sessions (open PRs, lifecycle polling only). */
  agents: agentSchema.nullable(),
  orchestrator: z.strictObject({
    ao: z.strictObject({
      /** AO's lifecycle loop period (hard-coded 30 s in AO). */
      cycleS: z.number().positive(),
      /** PRs per enrichment query. */
      batchSize: z.number().int().positive().max(100),
      /** What a gh subprocess adds to each AO call (spawn, auth, TLS), simulated ms. */
      callOverheadMs: z.number().nonnegative(),
      /** Per session: the review-comments check, at most this often. */
      reviewCheckS: z.number().positive(),
      /**
       * The review check's GraphQL runs on every check (AO treats gh's 304 exit code as "changed"
       * there — the seed's bug #1, fixed only in the two batch guards); false: only on a 200.
       */
      reviewQueryOnEveryCheck: z.boolean(),
    }),
  }),
});
export type Profile = z.output<typeof profileSchema>;
export type ProfileInput = z.input<typeof profileSchema>;

export type ProfileParse = { ok: true; profile: Profile } | { ok: false; message: string };

export function parseProfile(input: unknown): ProfileParse {
  const result = profileSchema.safeParse(input);
  return result.success
    ? { ok: true, profile: result.data }
    : { ok: false, message: z.prettifyError(result.error) };
}
