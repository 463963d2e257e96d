/**
 * The scenario format (docs/simulator.md documents it field by field) and the event vocabulary
 * shared by scenario timelines and `POST /_sim/events`. Validated once at the edge with zod:
 * unknown keys are refused, so a typo in a scenario file is an error, not a silent default.
 */
import { z } from "zod";

const login = z.string().min(1).max(100);
const positiveInt = z.number().int().positive();
const isoTime = z.iso.datetime({ offset: true });

export const checkConclusionSchema = z.enum([
  "success",
  "failure",
  "neutral",
  "cancelled",
  "skipped",
  "timed_out",
  "action_required",
  "stale",
]);
export const checkStatusSchema = z.enum(["queued", "in_progress", "completed"]);
export const statusStateSchema = z.enum(["pending", "success", "failure", "error"]);
export const reviewStateSchema = z.enum(["APPROVED", "CHANGES_REQUESTED", "COMMENTED"]);

const stepSchema = z.strictObject({
  name: z.string().min(1),
  conclusion: checkConclusionSchema.optional(),
  /** The step's log text (lines end with \n). */
  log: z.string().optional(),
});

const annotationSchema = z.strictObject({
  path: z.string().min(1),
  startLine: positiveInt,
  endLine: positiveInt.optional(),
  level: z.enum(["notice", "warning", "failure"]).default("failure"),
  message: z.string().min(1),
  title: z.string().optional(),
});

export const jobSpecSchema = z.strictObject({
  id: positiveInt.optional(),
  name: z.string().min(1),
  /** Outcome once completed. */
  conclusion: checkConclusionSchema.default("success"),
  /** Static state when no timing is given. @defaultValue "completed" */
  status: checkStatusSchema.optional(),
  /** Motion: queued for this long after the CI starts, then in_progress. */
  startAfterS: z.number().nonnegative().optional(),
  /** Motion: in_progress for this long, then completed with `conclusion`. */
  durationS: z.number().nonnegative().optional(),
  steps: z.array(stepSchema).optional(),
  annotations: z.array(annotationSchema).optional(),
  title: z.string().optional(),
  summary: z.string().optional(),
});

export const ciSpecSchema = z.strictObject({
  /** Workflow id. @defaultValue the repository's first workflow */
  workflowId: positiveInt.optional(),
  runId: positiveInt.optional(),
  event: z.string().min(1).optional(),
  /**
   * The run was created this long before the event or the scenario's start (a run under way or
   * finished when the world begins): its created_at and its static jobs' times move back by it
   * (run_started_at follows its first job), so the runs list orders it among older runs. Moving
   * jobs still move from the event on. At most a year. @defaultValue 0
   */
  createdAgoS: z.number().nonnegative().max(31_536_000).optional(),
  jobs: z.array(jobSpecSchema).min(1),
  artifacts: z
    .array(
      z.strictObject({ name: z.string().min(1), sizeInBytes: z.number().int().nonnegative().optional() }),
    )
    .optional(),
});

/** A check run that is not a GitHub Actions job (another app's check, e.g. a deploy preview). */
export const checkSpecSchema = z.strictObject({
  id: positiveInt.optional(),
  name: z.string().min(1),
  /** The app that owns the check. @defaultValue "checks-bot" */
  app: z.string().min(1).optional(),
  conclusion: checkConclusionSchema.default("success"),
  status: checkStatusSchema.optional(),
  startAfterS: z.number().nonnegative().optional(),
  durationS: z.number().nonnegative().optional(),
  detailsUrl: z.url().optional(),
  title: z.string().optional(),
  summary: z.string().optional(),
});

export const statusSpecSchema = z.strictObject({
  context: z.string().min(1),
  state: statusStateSchema,
  description: z.string().optional(),
  targetUrl: z.url().optional(),
});

const reviewCommentSpec = z.strictObject({
  path: z.string().min(1),
  line: positiveInt,
  body: z.string().min(1),
});

const reviewSpecSchema = z.strictObject({
  author: login,
  state: reviewStateSchema,
  body: z.string().optional(),
  comments: z.array(reviewCommentSpec).optional(),
});

const commentSpecSchema = z.strictObject({ author: login.optional(), body: z.string().min(1) });

const fileSpecSchema = z.strictObject({
  path: z.string().min(1),
  additions: z.number().int().nonnegative().default(0),
  deletions: z.number().int().nonnegative().default(0),
  status: z.enum(["added", "modified", "removed", "renamed"]).default("modified"),
});

export const pullSpecSchema = z.strictObject({
  number: positiveInt.optional(),
  title: z.string().min(1),
  body: z.string().optional(),
  author: login.optional(),
  head: z.string().min(1),
  base: z.string().min(1).optional(),
  draft: z.boolean().optional(),
  state: z.enum(["open", "closed", "merged"]).optional(),
  labels: z.array(z.string().min(1)).optional(),
  assignees: z.array(login).optional(),
  reviewers: z.array(login).optional(),
  files: z.array(fileSpecSchema).optional(),
  /** Commits on the head branch, oldest first. @defaultValue one commit named after the title */
  commits: z.array(z.strictObject({ message: z.string().min(1), author: login.optional() })).optional(),
  mergeable: z.enum(["MERGEABLE", "CONFLICTING", "UNKNOWN"]).optional(),
  mergeState: z.string().optional(),
  ci: z.union([ciSpecSchema, z.array(ciSpecSchema)]).optional(),
  /** Check runs of other apps on the head commit. */
  checks: z.array(checkSpecSchema).optional(),
  statuses: z.array(statusSpecSchema).optional(),
  reviews: z.array(reviewSpecSchema).optional(),
  comments: z.array(commentSpecSchema).optional(),
  createdAt: isoTime.optional(),
});

export const issueSpecSchema = z.strictObject({
  number: positiveInt.optional(),
  title: z.string().min(1),
  body: z.string().optional(),
  author: login.optional(),
  state: z.enum(["open", "closed"]).optional(),
  labels: z.array(z.string().min(1)).optional(),
  assignees: z.array(login).optional(),
  comments: z.array(commentSpecSchema).optional(),
  createdAt: isoTime.optional(),
});

export const repoSpecSchema = z.strictObject({
  owner: login,
  name: z.string().min(1).max(100),
  id: positiveInt.optional(),
  description: z.string().optional(),
  defaultBranch: z.string().min(1).optional(),
  private: z.boolean().optional(),
  requireReviews: z.boolean().optional(),
  labels: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        color: z.string().optional(),
        description: z.string().optional(),
      }),
    )
    .optional(),
  workflows: z
    .array(z.strictObject({ id: positiveInt, name: z.string().min(1), path: z.string().optional() }))
    .optional(),
  pulls: z.array(pullSpecSchema).optional(),
  issues: z.array(issueSpecSchema).optional(),
  /** N extra open PRs with passing CI (numbers 101.., branches gen/pr-<number>). */
  generatedPulls: z.number().int().nonnegative().max(10_000).optional(),
});

const repoRef = {
  repo: z
    .string()
    .regex(/^[^/\s]+\/[^/\s]+$/, "expected OWNER/NAME")
    .optional(),
};

export const simEventSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("push"),
    ...repoRef,
    branch: z.string().min(1),
    message: z.string().optional(),
    sha: z
      .string()
      .regex(/^[0-9a-f]{40}$/)
      .optional(),
    author: login.optional(),
    ci: ciSpecSchema.optional(),
    checks: z.array(checkSpecSchema).optional(),
  }),
  z.strictObject({
    type: z.literal("check"),
    ...repoRef,
    id: positiveInt.optional(),
    pr: positiveInt.optional(),
    name: z.string().optional(),
    status: checkStatusSchema.default("completed"),
    conclusion: checkConclusionSchema.optional(),
  }),
  z.strictObject({
    type: z.literal("status"),
    ...repoRef,
    sha: z.string().optional(),
    pr: positiveInt.optional(),
    ...statusSpecSchema.shape,
  }),
  z.strictObject({
    type: z.literal("ci"),
    ...repoRef,
    pr: positiveInt.optional(),
    sha: z.string().optional(),
    ci: ciSpecSchema,
  }),
  z.strictObject({ type: z.literal("review"), ...repoRef, pr: positiveInt, ...reviewSpecSchema.shape }),
  z.strictObject({ type: z.literal("comment"), ...repoRef, number: positiveInt, ...commentSpecSchema.shape }),
  z.strictObject({
    type: z.literal("review_comment"),
    ...repoRef,
    pr: positiveInt,
    author: login.optional(),
    inReplyTo: positiveInt.optional(),
    ...reviewCommentSpec.shape,
  }),
  z.strictObject({
    type: z.literal("resolve_thread"),
    ...repoRef,
    pr: positiveInt,
    threadId: positiveInt,
    resolved: z.boolean().default(true),
  }),
  z.strictObject({
    type: z.literal("merge"),
    ...repoRef,
    pr: positiveInt,
    method: z.enum(["MERGE", "SQUASH", "REBASE"]).optional(),
    by: login.optional(),
  }),
  z.strictObject({ type: z.literal("close"), ...repoRef, number: positiveInt }),
  z.strictObject({ type: z.literal("reopen"), ...repoRef, number: positiveInt }),
  z.strictObject({ type: z.literal("ready"), ...repoRef, pr: positiveInt }),
  z.strictObject({ type: z.literal("draft"), ...repoRef, pr: positiveInt }),
  z.strictObject({
    type: z.literal("mergeable"),
    ...repoRef,
    pr: positiveInt,
    mergeable: z.enum(["MERGEABLE", "CONFLICTING", "UNKNOWN"]),
    mergeState: z.string().nullable().optional(),
  }),
  z.strictObject({
    type: z.literal("labels"),
    ...repoRef,
    number: positiveInt,
    add: z.array(z.string().min(1)).optional(),
    remove: z.array(z.string().min(1)).optional(),
  }),
  z.strictObject({
    type: z.literal("open_pr"),
    ...repoRef,
    ...pullSpecSchema.omit({ state: true, createdAt: true }).shape,
  }),
  z.strictObject({
    type: z.literal("open_issue"),
    ...repoRef,
    ...issueSpecSchema.omit({ state: true, createdAt: true }).shape,
  }),
]);

export const timelineEntrySchema = z.strictObject({
  /** Seconds after the scenario starts (load, reset). */
  atS: z.number().nonnegative(),
  event: simEventSchema,
});

export const scenarioSchema = z.strictObject({
  name: z.string().optional(),
  /** Time origin of the static records' timestamps. @defaultValue "2026-01-05T09:00:00Z" */
  epoch: isoTime.optional(),
  /** The user the accepted token belongs to. @defaultValue octocat, id 1 */
  viewer: z.strictObject({ login, id: positiveInt.optional(), name: z.string().optional() }).optional(),
  users: z
    .array(
      z.strictObject({
        login,
        id: positiveInt.optional(),
        name: z.string().optional(),
        type: z.enum(["User", "Bot"]).optional(),
      }),
    )
    .optional(),
  repos: z.array(repoSpecSchema).min(1),
  timeline: z.array(timelineEntrySchema).optional(),
});

export type Scenario = z.input<typeof scenarioSchema>;
export type ParsedScenario = z.output<typeof scenarioSchema>;
export type SimEvent = z.input<typeof simEventSchema>;
export type ParsedSimEvent = z.output<typeof simEventSchema>;
export type CiSpec = z.output<typeof ciSpecSchema>;
export type CheckSpec = z.output<typeof checkSpecSchema>;
export type JobSpec = z.output<typeof jobSpecSchema>;
export type PullSpec = z.output<typeof pullSpecSchema>;
export type IssueSpec = z.output<typeof issueSpecSchema>;
export type RepoSpec = z.output<typeof repoSpecSchema>;

export type SchemaResult<T> = { ok: true; value: T } | { ok: false; message: string };

interface Issue {
  readonly code: string;
  readonly message: string;
  readonly path: readonly PropertyKey[];
  readonly errors?: readonly (readonly Issue[])[];
}

/**
 * Flattens union failures to the branch that got furthest (deepest path), so "ci: a job's
 * conclusion is invalid" is reported instead of zod's bare "Invalid input" for the union.
 */
function flatten(
  issues: readonly Issue[],
  prefix: readonly PropertyKey[] = [],
): { path: PropertyKey[]; message: string }[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if (issue.code === "invalid_union" && issue.errors && issue.errors.length > 0) {
      const depth = (branch: readonly Issue[]) => Math.max(...branch.map((i) => i.path.length));
      const best = [...issue.errors].sort((a, b) => depth(b) - depth(a))[0] ?? [];
      return flatten(best, path);
    }
    return [{ path, message: issue.message }];
  });
}

function formatIssues(issues: readonly Issue[]): string {
  return flatten(issues)
    .map(({ path, message }) => {
      const where = path
        .map((p, i) => (typeof p === "number" ? `[${p}]` : `${i === 0 ? "" : "."}${String(p)}`))
        .join("");
      return where ? `✖ ${message}\n  → at ${where}` : `✖ ${message}`;
    })
    .join("\n");
}

function parseWith<T>(schema: z.ZodType<T>, input: unknown): SchemaResult<T> {
  const result = schema.safeParse(input);
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, message: formatIssues(result.error.issues as unknown as readonly Issue[]) };
}

export function parseScenario(input: unknown): SchemaResult<ParsedScenario> {
  return parseWith(scenarioSchema, input);
}

export function parseSimEvent(input: unknown): SchemaResult<ParsedSimEvent> {
  return parseWith(simEventSchema, input);
}
