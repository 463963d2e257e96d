/**
 * Webhooks as the primary signal (issue 16, decision 0021): what one delivery means for the cache.
 * Pure: the receiver (cache/webhook-patcher.ts) parses the body and hands it in.
 *
 * - **Patches.** A payload's object is the REST representation of the same thing (GitHub's webhook
 *   docs): `pull_request` → `GET pulls/N`, `check_run` → `GET check-runs/{id}`, `workflow_job` →
 *   `GET actions/jobs/{id}`, `workflow_run` → `GET actions/runs/{id}`. The cached answers of exactly
 *   those paths (no query string) are replaced by the payload's object.
 * - **Moves.** Every (object, facet) pair the event changes, as a WriteEffect resolved like a write
 *   (core/resolve-write.ts): a check moves only the checks of its head and of its PRs (and the job
 *   details read by id), a run its own run tag and the run lists, a PR event that PR's facets but
 *   checks, a review or a comment only reviews/threads/comments. GraphQL answers that read them
 *   are refreshed once (decision 0014); the patched REST answers are current already.
 *
 * Never throws: a payload is untrusted input even after its signature was checked; anything this
 * cannot read is simply not patched (its moves, when known, still apply).
 */
import {
  actionsJobTag,
  actionsRunsTag,
  actionsRunTag,
  createdTags,
  type Facet,
  listFacetTag,
  objectKey,
  shaChecksTag,
  type Tag,
} from "./facets.js";
import { NO_WRITE, type WriteEffect } from "./rest-facets.js";

export const PATCHING_WEBHOOK_EVENTS = [
  "pull_request",
  "check_run",
  "workflow_run",
  "workflow_job",
  "pull_request_review",
  "issue_comment",
] as const;

/** One cached REST answer to replace: the exact path a GET reads and its new body. */
export interface RestPatch {
  readonly path: string;
  readonly body: Readonly<Record<string, unknown>>;
}

export interface WebhookPlan {
  readonly repo: { readonly owner: string; readonly name: string };
  readonly patches: readonly RestPatch[];
  readonly effect: WriteEffect;
  /** Head branches the payload names for PRs (`num:` object → branch): a state move moves that lookup only. */
  readonly branches: ReadonlyMap<string, string>;
  /** `event.action`, for logs and counters. */
  readonly name: string;
}

type Json = Readonly<Record<string, unknown>>;
const obj = (v: unknown): Json | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
const str = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined);
const id = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isSafeInteger(v) && v > 0 ? v : undefined;
const numbers = (v: unknown): number[] =>
  (Array.isArray(v) ? v : []).map((p) => id(obj(p)?.number)).filter((n): n is number => n !== undefined);

const PR_MOVES: readonly Facet[] = ["core", "state", "head", "merge"];

function path(owner: string, name: string, rest: string): string {
  return `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}${rest}`;
}

/** CI of a head moved: its commit checks, the checks of its PRs (by number, or by head branch). */
function checksEffect(
  owner: string,
  name: string,
  sha: string | undefined,
  prs: readonly number[],
  branch: string | undefined,
  extra: readonly Tag[],
): WriteEffect {
  const tags: Tag[] = [...extra];
  if (sha) tags.push(shaChecksTag(owner, name, sha));
  if (prs.length === 0 && !branch) {
    // Which PR is not known: the lists' CI facets (their members' checks) at least.
    for (const facet of ["checks", "merge"] as const)
      tags.push(listFacetTag(owner, name, "pulls", facet), listFacetTag(owner, name, "issues", facet));
  }
  return {
    ...NO_WRITE,
    tags,
    objects: prs.map((n) => ({ object: objectKey(owner, name, n), facets: ["checks"] as Facet[] })),
    branches: branch && prs.length === 0 ? [{ owner, name, branch, facets: ["checks"] }] : [],
  };
}

/** What this delivery patches and moves; undefined when it names no repository or no object. */
export function planWebhook(event: string, payload: unknown): WebhookPlan | undefined {
  const body = obj(payload);
  const fullName = str(obj(body?.repository)?.full_name);
  const [owner, name, extraSegment] = fullName?.split("/") ?? [];
  if (!body || !owner || !name || extraSegment !== undefined) return undefined;
  const action = str(body.action) ?? "";
  const plan = (
    patches: RestPatch[],
    effect: WriteEffect,
    branches: Map<string, string> = new Map(),
  ): WebhookPlan => ({ repo: { owner, name }, patches, effect, branches, name: `${event}.${action}` });

  switch (event) {
    case "pull_request": {
      const pr = obj(body.pull_request);
      const number = id(pr?.number) ?? id(body.number);
      if (!pr || number === undefined) return undefined;
      const object = objectKey(owner, name, number);
      const branch = str(obj(pr.head)?.ref);
      const effect: WriteEffect = {
        ...NO_WRITE,
        tags: action === "opened" ? createdTags(owner, name, "pulls", branch) : [],
        objects: [{ object, facets: PR_MOVES }],
      };
      return plan(
        [{ path: path(owner, name, `/pulls/${number}`), body: pr }],
        effect,
        new Map(branch ? [[object, branch]] : []),
      );
    }
    case "check_run": {
      const run = obj(body.check_run);
      const checkId = id(run?.id);
      if (!run || checkId === undefined) return undefined;
      const effect = checksEffect(
        owner,
        name,
        str(run.head_sha),
        numbers(run.pull_requests),
        str(obj(run.check_suite)?.head_branch),
        // That check run's own answers (by id, its annotations), not every job's of the repository.
        [actionsJobTag(owner, name, checkId)],
      );
      return plan([{ path: path(owner, name, `/check-runs/${checkId}`), body: run }], effect);
    }
    case "workflow_job": {
      const job = obj(body.workflow_job);
      const jobId = id(job?.id);
      if (!job || jobId === undefined) return undefined;
      const runId = id(job.run_id);
      const branch = str(job.head_branch);
      const extra = [
        actionsJobTag(owner, name, jobId),
        // A run's updated_at follows its jobs, so the run and the run lists move with them.
        ...(runId !== undefined ? [actionsRunTag(owner, name, runId)] : []),
        actionsRunsTag(owner, name),
        ...(branch ? [actionsRunsTag(owner, name, branch)] : []),
      ];
      const effect = checksEffect(owner, name, str(job.head_sha), [], branch, extra);
      return plan([{ path: path(owner, name, `/actions/jobs/${jobId}`), body: job }], effect);
    }
    case "workflow_run": {
      const run = obj(body.workflow_run);
      const runId = id(run?.id);
      if (!run || runId === undefined) return undefined;
      const branch = str(run.head_branch);
      const extra = [
        actionsRunTag(owner, name, runId),
        actionsRunsTag(owner, name),
        ...(branch ? [actionsRunsTag(owner, name, branch)] : []),
      ];
      // Its jobs list is under the run's own tag; each job's own answers move with its own delivery.
      const effect = checksEffect(owner, name, str(run.head_sha), numbers(run.pull_requests), branch, extra);
      return plan([{ path: path(owner, name, `/actions/runs/${runId}`), body: run }], effect);
    }
    case "pull_request_review": {
      const number = id(obj(body.pull_request)?.number);
      if (number === undefined) return undefined;
      // The review's PR object is not GET pulls/N's representation on GitHub (no mergeability):
      // moved, not patched. A review changes the review decision, and so the merge state.
      return plan([], {
        ...NO_WRITE,
        objects: [
          { object: objectKey(owner, name, number), facets: ["reviews", "threads", "comments", "merge"] },
        ],
      });
    }
    case "issue_comment": {
      const number = id(obj(body.issue)?.number);
      if (number === undefined) return undefined;
      return plan([], {
        ...NO_WRITE,
        objects: [{ object: objectKey(owner, name, number), facets: ["comments"] }],
      });
    }
    default:
      return undefined;
  }
}

const STATUS_RANK: Readonly<Record<string, number>> = {
  queued: 1,
  waiting: 1,
  pending: 1,
  requested: 1,
  in_progress: 2,
  completed: 3,
};

/**
 * Whether a patch may replace the cached body: never by an older object (webhooks may arrive out
 * of order). Objects with `updated_at` compare it; check runs and jobs, which have none, compare
 * their status (queued < in_progress < completed) and then `completed_at`/`started_at`. When
 * the cached body cannot be read, the patch wins (it is at least as new as the delivery).
 */
export function patchIsNewer(cached: unknown, patch: Json): boolean {
  const before = obj(cached);
  if (!before) return true;
  const time = (o: Json, field: string) => {
    const t = Date.parse(String(o[field] ?? ""));
    return Number.isFinite(t) ? t : undefined;
  };
  const bu = time(before, "updated_at");
  const pu = time(patch, "updated_at");
  if (bu !== undefined && pu !== undefined) return pu >= bu;
  const br = STATUS_RANK[String(before.status)] ?? 0;
  const pr = STATUS_RANK[String(patch.status)] ?? 0;
  if (br !== pr) return pr > br;
  for (const field of ["completed_at", "started_at"]) {
    const b = time(before, field);
    const p = time(patch, field);
    if (b !== undefined && p !== undefined && b !== p) return p > b;
  }
  return true;
}

/**
 * The tags gathered deliveries still have to move once the broker's own writes are taken out
 * (`arrivals`: tag → when the first delivery naming it arrived, epoch ms; `writtenAt`: tag → when
 * a write through this broker last moved it). A tag written at most `windowMs` before its delivery
 * arrived is that write's own webhook coming back; a tag written after the delivery arrived was
 * moved after the change it reports was already visible. Either way the answers agents read since
 * the write's move are current, and moving the tag again would only fetch them once more. Order is
 * kept; `windowMs` 0 keeps every tag.
 */
export function withoutOwnWrites(
  arrivals: ReadonlyMap<Tag, number>,
  writtenAt: ReadonlyMap<Tag, number>,
  windowMs: number,
): Tag[] {
  const tags = [...arrivals.keys()];
  if (windowMs <= 0) return tags;
  return tags.filter((tag) => {
    const at = writtenAt.get(tag);
    const arrivedAt = arrivals.get(tag) ?? 0;
    return at === undefined || at < arrivedAt - windowMs;
  });
}
