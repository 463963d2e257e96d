/**
 * gh 2.23's commands, replayed request by request from the captures (gh-2.23-requests.generated.ts):
 * the exact GraphQL documents, variables, REST paths and headers gh sends, with the session's own
 * numbers, in gh's order, with gh's polling cadence (`pr checks --watch` every 10 s, `run watch`
 * every 3 s) and gh's follow-up logic (node ids from the first answer, annotations once per job,
 * the PullRequest introspection once per gh cache). docs/benchmark-method.md lists what each
 * command sends and its cost; the `--real-gh` check compares this replay with the real binary.
 */
import { type CapturedRequest, fillPath, fillValue } from "../core/capture-template.js";
import type { AnswerSubject } from "../core/facts.js";
import { GH_223_CAPTURES } from "./gh-2.23-requests.generated.js";
import type { CommandOutcome, PreparedRequest, ReplayAnswer, ReplayContext } from "./replay-types.js";

const WATCH_INTERVAL_MS = 10_000;
const RUN_WATCH_INTERVAL_MS = 3_000;

function captured(name: string, index: number): CapturedRequest {
  const entry = GH_223_CAPTURES[name]?.[index];
  if (!entry) throw new Error(`replay: capture ${name}#${index} is missing from the catalog`);
  return entry;
}

function restOperation(method: string, template: string): string {
  const path = template.split("?")[0] ?? template;
  if (/\/actions\/runs\/\{\{runId\}\}$/.test(path)) return "run";
  if (/\/actions\/runs\/\{\{runId\}\}\/jobs$/.test(path)) return "jobs";
  return `${method} ${path.replace(/\{\{(\w+)\}\}/g, "{$1}")}`;
}

function subjectOf(ctx: ReplayContext): AnswerSubject {
  const b = ctx.bindings;
  return {
    repo: `${String(b.owner)}/${String(b.repo)}`,
    ...(typeof b.pr === "number" ? { pr: b.pr } : {}),
    ...(typeof b.runId === "number" ? { runId: b.runId } : {}),
    ...(typeof b.issue === "number" ? { issue: b.issue } : {}),
  };
}

/** Fills one captured request with the session's bindings (plus `extra`). */
export function prepare(
  entry: CapturedRequest,
  ctx: ReplayContext,
  extra: Readonly<Record<string, string | number | boolean | null>> = {},
): PreparedRequest {
  const bindings = { ...ctx.bindings, ...extra };
  const subject: AnswerSubject = subjectOf({ ...ctx, bindings });
  if (entry.query !== undefined) {
    const variables = (fillValue(entry.variables ?? {}, bindings) ?? {}) as Record<string, unknown>;
    return {
      method: entry.method,
      path: entry.path,
      headers: entry.headers,
      body: JSON.stringify({ query: entry.query, variables }),
      operation: entry.operationName ?? "anonymous",
      subject,
      graphql: { query: entry.query, variables },
    };
  }
  return {
    method: entry.method,
    path: fillPath(entry.path, bindings),
    headers: entry.headers,
    operation: restOperation(entry.method, entry.path),
    subject,
  };
}

type J = Record<string, unknown>;
const at = (value: unknown, ...path: (string | number)[]): unknown => {
  let cur = value;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as J)[key as string];
  }
  return cur;
};

const fail = (answer: ReplayAnswer): CommandOutcome<never> => ({
  ok: false,
  rateLimited: answer.rateLimited,
});

export interface ChecksSummary {
  readonly total: number;
  readonly pending: number;
  readonly failed: number;
}

const FAILING = new Set(["FAILURE", "TIMED_OUT", "CANCELLED", "ACTION_REQUIRED", "STARTUP_FAILURE", "ERROR"]);

/** Summary of a `statusCheckRollup: commits(last: 1)` object as gh reads it. */
export function summarizeChecks(rollupCommits: unknown): ChecksSummary {
  const contexts = at(rollupCommits, "nodes", 0, "commit", "statusCheckRollup", "contexts", "nodes");
  let total = 0;
  let pending = 0;
  let failed = 0;
  for (const node of Array.isArray(contexts) ? contexts : []) {
    total++;
    const status = at(node, "status") ?? "COMPLETED";
    const conclusion = at(node, "conclusion") ?? at(node, "state");
    if (status !== "COMPLETED" || conclusion === "PENDING" || conclusion === "EXPECTED") pending++;
    else if (typeof conclusion === "string" && FAILING.has(conclusion)) failed++;
  }
  return { total, pending, failed };
}

async function single(ctx: ReplayContext, name: string): Promise<CommandOutcome<ReplayAnswer>> {
  const answer = await ctx.send(prepare(captured(name, 0), ctx));
  return answer.ok ? { ok: true, rateLimited: false, value: answer } : fail(answer);
}

/** `gh issue view N` / `gh issue view N --comments`. */
export async function issueView(ctx: ReplayContext, comments: boolean): Promise<CommandOutcome> {
  const name = comments ? "issue_view_comments" : "issue_view";
  const first = await ctx.send(prepare(captured(name, 0), ctx));
  if (!first.ok) return fail(first);
  if (!comments) return { ok: true, rateLimited: false };
  const id = at(first.json, "data", "repository", "issue", "id");
  if (typeof id !== "string") return { ok: false, rateLimited: false };
  const second = await ctx.send(prepare(captured(name, 1), ctx, { issueNodeId: id }));
  return second.ok ? { ok: true, rateLimited: false } : fail(second);
}

export interface PrState {
  readonly state: string | undefined;
  readonly reviewDecision: string | undefined;
  /** reviews.totalCount, when the query asked for reviews. */
  readonly reviews: number | undefined;
  readonly checks: ChecksSummary | undefined;
}

/** `gh pr view N` and its --comments / --json variants (one PullRequestByNumber each). */
export async function prView(
  ctx: ReplayContext,
  variant: "pr_view" | "pr_view_comments" | "pr_view_json_checks" | "pr_view_json_reviews",
): Promise<CommandOutcome<PrState>> {
  const result = await single(ctx, variant);
  if (!result.ok || !result.value) return { ok: false, rateLimited: result.rateLimited };
  const pr = at(result.value.json, "data", "repository", "pullRequest");
  const rollup = at(pr, "statusCheckRollup");
  return {
    ok: true,
    rateLimited: false,
    value: {
      state: at(pr, "state") as string | undefined,
      reviewDecision: at(pr, "reviewDecision") as string | undefined,
      reviews: at(pr, "reviews", "totalCount") as number | undefined,
      checks: rollup === undefined ? undefined : summarizeChecks(rollup),
    },
  };
}

async function prNodeId(
  ctx: ReplayContext,
  capture: string,
  index = 0,
): Promise<{ id?: string; answer: ReplayAnswer }> {
  const answer = await ctx.send(prepare(captured(capture, index), ctx));
  const id = at(answer.json, "data", "repository", "pullRequest", "id");
  return typeof id === "string" && answer.ok ? { id, answer } : { answer };
}

/** `gh pr checks N`: the PR's node id, then one page of its checks. */
export async function prChecks(ctx: ReplayContext): Promise<CommandOutcome<ChecksSummary>> {
  const { id, answer } = await prNodeId(ctx, "pr_checks");
  if (!id) return fail(answer);
  const checks = await ctx.send(prepare(captured("pr_checks", 1), ctx, { prNodeId: id }));
  if (!checks.ok) return fail(checks);
  return {
    ok: true,
    rateLimited: false,
    value: summarizeChecks(at(checks.json, "data", "node", "statusCheckRollup")),
  };
}

/** `gh pr checks N --watch`: polls the checks every 10 s until none is pending (gh 2.23 has no fail-fast). */
export async function prChecksWatch(
  ctx: ReplayContext,
  maxMs: number,
): Promise<CommandOutcome<ChecksSummary>> {
  const { id, answer } = await prNodeId(ctx, "pr_checks_watch");
  if (!id) return fail(answer);
  const started = Date.now();
  for (let round = 0; ; round++) {
    if (round > 0) await ctx.sleep(WATCH_INTERVAL_MS);
    const checks = await ctx.send(prepare(captured("pr_checks_watch", 1), ctx, { prNodeId: id }));
    if (!checks.ok) return fail(checks);
    const summary = summarizeChecks(at(checks.json, "data", "node", "statusCheckRollup"));
    if (summary.total === 0 || summary.pending === 0)
      return { ok: summary.failed === 0, rateLimited: false, value: summary };
    if (round > 0 && Date.now() - started > maxMs) return { ok: false, rateLimited: false, value: summary };
  }
}

export async function prList(ctx: ReplayContext): Promise<CommandOutcome> {
  const result = await single(ctx, "pr_list");
  return { ok: result.ok, rateLimited: result.rateLimited };
}

export async function prDiff(ctx: ReplayContext): Promise<CommandOutcome> {
  const result = await single(ctx, "pr_diff");
  return { ok: result.ok, rateLimited: result.rateLimited };
}

/** `gh api repos/O/R/pulls/N/comments` (gh api's REST request, with the review-comments path). */
export async function apiPullComments(ctx: ReplayContext): Promise<CommandOutcome> {
  const template = captured("api_rest", 0);
  const answer = await ctx.send(prepare({ ...template, path: `${template.path}/comments` }, ctx));
  return answer.ok ? { ok: true, rateLimited: false } : fail(answer);
}

export interface RunRef {
  readonly runId: number;
  readonly workflowId: number;
  readonly status: string;
  readonly conclusion: string | null;
}

/** `gh run list --branch B --json ...`: the runs of the branch, newest first, and the workflows. */
export async function runListBranch(ctx: ReplayContext): Promise<CommandOutcome<RunRef>> {
  const runs = await ctx.send(prepare(captured("run_list_branch", 0), ctx));
  if (!runs.ok) return fail(runs);
  const workflows = await ctx.send(prepare(captured("run_list_branch", 1), ctx));
  if (!workflows.ok) return fail(workflows);
  const run = at(runs.json, "workflow_runs", 0);
  const runId = at(run, "id");
  const workflowId = at(run, "workflow_id");
  if (typeof runId !== "number" || typeof workflowId !== "number") return { ok: true, rateLimited: false };
  return {
    ok: true,
    rateLimited: false,
    value: {
      runId,
      workflowId,
      status: String(at(run, "status")),
      conclusion: (at(run, "conclusion") as string | null) ?? null,
    },
  };
}

/** `gh run watch ID`: the run and its workflow, the PR for its branch, then every 3 s run + workflow + jobs (+ annotations once per job) until done. */
export async function runWatch(
  ctx: ReplayContext,
  run: RunRef,
  maxMs: number,
): Promise<CommandOutcome<string | null>> {
  const ids = { runId: run.runId, workflowId: run.workflowId };
  const first = await ctx.send(prepare(captured("run_watch", 0), ctx, ids));
  if (!first.ok) return fail(first);
  const workflow = await ctx.send(prepare(captured("run_watch", 1), ctx, ids));
  if (!workflow.ok) return fail(workflow);
  if (at(first.json, "status") === "completed") {
    return {
      ok: at(first.json, "conclusion") === "success",
      rateLimited: false,
      value: at(first.json, "conclusion") as string,
    };
  }
  const pr = await ctx.send(prepare(captured("run_watch", 2), ctx, ids));
  if (!pr.ok) return fail(pr);
  const annotated = new Set<number>();
  const started = Date.now();
  for (let round = 0; ; round++) {
    if (round > 0) await ctx.sleep(RUN_WATCH_INTERVAL_MS);
    const current = await ctx.send(prepare(captured("run_watch", 3), ctx, ids));
    if (!current.ok) return fail(current);
    const wf = await ctx.send(prepare(captured("run_watch", 4), ctx, ids));
    if (!wf.ok) return fail(wf);
    const jobs = await ctx.send(prepare(captured("run_watch", 5), ctx, ids));
    if (!jobs.ok) return fail(jobs);
    const list = at(jobs.json, "jobs");
    for (const job of Array.isArray(list) ? list : []) {
      const jobId = at(job, "id");
      if (typeof jobId !== "number" || annotated.has(jobId)) continue;
      annotated.add(jobId);
      const annotations = await ctx.send(prepare(captured("run_watch", 6), ctx, { ...ids, jobId }));
      if (!annotations.ok && annotations.rateLimited) return fail(annotations);
    }
    if (at(current.json, "status") === "completed") {
      const conclusion = (at(current.json, "conclusion") as string | null) ?? null;
      return { ok: conclusion === "success", rateLimited: false, value: conclusion };
    }
    if (Date.now() - started > maxMs) return { ok: false, rateLimited: false };
  }
}

/** `gh run view ID --log-failed`: run, workflow, jobs, then the log archive. */
export async function runViewLogFailed(ctx: ReplayContext, run: RunRef): Promise<CommandOutcome> {
  const ids = { runId: run.runId, workflowId: run.workflowId };
  for (let i = 0; i < 4; i++) {
    const answer = await ctx.send(prepare(captured("run_view_log_failed", i), ctx, ids));
    // The logs endpoint redirects to a blob; a 302 is the expected answer there.
    if (!answer.ok && !(i === 3 && answer.status >= 300 && answer.status < 400)) return fail(answer);
  }
  return { ok: true, rateLimited: false };
}

/** `gh pr create --title T --body B --head BRANCH`: repository info, existing-PR check, the mutation. */
export async function prCreate(
  ctx: ReplayContext,
  title: string,
  body: string,
): Promise<CommandOutcome<number>> {
  const info = await ctx.send(prepare(captured("git_pr_create_head", 0), ctx));
  const repoNodeId = at(info.json, "data", "repository", "id");
  if (!info.ok || typeof repoNodeId !== "string") return fail(info);
  const existing = await ctx.send(prepare(captured("git_pr_create_head", 1), ctx));
  if (!existing.ok) return fail(existing);
  const open = at(existing.json, "data", "repository", "pullRequests", "nodes", 0, "number");
  if (typeof open === "number") return { ok: false, rateLimited: false, value: open };
  const created = await ctx.send(
    prepare(captured("git_pr_create_head", 2), ctx, { repoNodeId, title, body }),
  );
  if (!created.ok) return fail(created);
  const url = at(created.json, "data", "createPullRequest", "pullRequest", "url");
  const number = typeof url === "string" ? Number(/\/pull\/(\d+)$/.exec(url)?.[1]) : Number.NaN;
  return Number.isInteger(number)
    ? { ok: true, rateLimited: false, value: number }
    : { ok: false, rateLimited: false };
}

/** `gh pr comment N --body B`. */
export async function prComment(ctx: ReplayContext, body: string): Promise<CommandOutcome> {
  const { id, answer } = await prNodeId(ctx, "pr_comment");
  if (!id) return fail(answer);
  const posted = await ctx.send(prepare(captured("pr_comment", 1), ctx, { prNodeId: id, body }));
  return posted.ok ? { ok: true, rateLimited: false } : fail(posted);
}

/** `gh pr merge N --squash --delete-branch` (the field introspection only while gh's cache is cold). */
export async function prMerge(ctx: ReplayContext): Promise<CommandOutcome> {
  if (!ctx.ghCache.introspected) {
    const fields = await ctx.send(prepare(captured("pr_merge_squash_delete", 0), ctx));
    if (!fields.ok) return fail(fields);
    ctx.ghCache.introspected = true;
  }
  const { id, answer } = await prNodeId(ctx, "pr_merge_squash_delete", 1);
  if (!id) return fail(answer);
  const merged = await ctx.send(prepare(captured("pr_merge_squash_delete", 2), ctx, { prNodeId: id }));
  if (!merged.ok) return fail(merged);
  const deleted = await ctx.send(prepare(captured("pr_merge_squash_delete", 3), ctx));
  return deleted.ok ? { ok: true, rateLimited: false } : fail(deleted);
}
