/**
 * World changes → the webhook deliveries GitHub would send for them: the event name
 * (X-GitHub-Event) and the payload, whose object is the REST representation of the same thing
 * (GitHub's webhook docs: "pull_request" carries the pull request as `GET pulls/N` returns it,
 * "check_run" a check run as `GET check-runs/{id}`, "workflow_run" / "workflow_job" a run / job as
 * the Actions API returns them;
 * https://docs.github.com/en/webhooks/webhook-events-and-payloads). The objects are built by the
 * same REST shapes the simulator answers with, so a receiver that patches a cached answer from a
 * payload holds exactly what the next GET would return (for the same API base).
 *
 * Only the events of issue 16 are produced: pull_request, check_run, workflow_run, workflow_job,
 * pull_request_review, issue_comment. A change without a GitHub event (mergeability, the
 * simulator's `pull_request.checks`, a run's `updated` while its jobs move) produces nothing.
 * Reads the world, never changes it.
 */
import type { SimPullRequest, SimRepo, WorldChange } from "../core/model.js";
import type { World } from "../core/world.js";
import { jobShape, workflowRunShape } from "../rest/shapes/actions.js";
import { checkRunShape } from "../rest/shapes/checks.js";
import type { ShapeContext } from "../rest/shapes/context.js";
import { issueCommentShape, issueShape } from "../rest/shapes/issues.js";
import { pullFull, reviewShape } from "../rest/shapes/pulls.js";
import { repository } from "../rest/shapes/repos.js";
import { simpleUser } from "../rest/shapes/users.js";

export const WEBHOOK_EVENTS = [
  "pull_request",
  "check_run",
  "workflow_run",
  "workflow_job",
  "pull_request_review",
  "issue_comment",
] as const;
export type SimWebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export interface WebhookDelivery {
  readonly event: SimWebhookEvent;
  /** `${event}.${action}`, for stats and logs. */
  readonly name: string;
  readonly payload: Readonly<Record<string, unknown>>;
  /** The scenario instant of the change it reports. */
  readonly at: number;
}

/** pull_request actions GitHub sends, by the simulator's change kind (merged is `closed`). */
const PULL_ACTIONS: Readonly<Record<string, string>> = {
  "pull_request.opened": "opened",
  "pull_request.closed": "closed",
  "pull_request.merged": "closed",
  "pull_request.reopened": "reopened",
  "pull_request.synchronize": "synchronize",
  "pull_request.labeled": "labeled",
  "pull_request.ready_for_review": "ready_for_review",
  "pull_request.converted_to_draft": "converted_to_draft",
  "pull_request.edited": "edited",
};

function envelope(ctx: ShapeContext, repo: SimRepo, action: string, rest: Record<string, unknown>) {
  return {
    action,
    ...rest,
    repository: repository(ctx, repo),
    sender: simpleUser(ctx, ctx.world.viewer),
  };
}

function pullFor(repo: SimRepo, change: WorldChange): SimPullRequest | undefined {
  return change.number === undefined ? undefined : repo.pulls.get(change.number);
}

/** The deliveries one change makes (none, one, or for an Actions job two: check_run and workflow_job). */
export function webhooksForChange(world: World, ctx: ShapeContext, change: WorldChange): WebhookDelivery[] {
  const repo = world.repo(change.repo);
  if (!repo) return [];
  const out: WebhookDelivery[] = [];
  const add = (event: SimWebhookEvent, action: string, rest: Record<string, unknown>) =>
    out.push({
      event,
      name: `${event}.${action}`,
      payload: envelope(ctx, repo, action, rest),
      at: change.at,
    });
  const [family, verb = ""] = change.kind.split(".");

  const pullAction = PULL_ACTIONS[change.kind];
  if (pullAction) {
    const pr = pullFor(repo, change);
    if (pr) add("pull_request", pullAction, { number: pr.number, pull_request: pullFull(ctx, repo, pr) });
    return out;
  }
  if (family === "check_run" && change.id !== undefined) {
    const check = repo.checkRuns.get(change.id);
    if (!check) return out;
    // GitHub sends check_run `created` and `completed`; a check that starts is a workflow_job move only.
    if (verb === "created" || verb === "completed")
      add("check_run", verb, { check_run: checkRunShape(ctx, repo, check) });
    if (check.runId !== null) {
      const action = verb === "created" ? "queued" : verb;
      if (action === "queued" || action === "in_progress" || action === "completed")
        add("workflow_job", action, { workflow_job: jobShape(ctx, repo, check) });
    }
    return out;
  }
  if (family === "workflow_run" && change.id !== undefined) {
    const run = repo.runs.get(change.id);
    if (!run || (verb !== "requested" && verb !== "in_progress" && verb !== "completed")) return out;
    const workflow = repo.workflows.get(run.workflowId);
    add("workflow_run", verb, {
      workflow_run: workflowRunShape(ctx, repo, run, true),
      ...(workflow ? { workflow: { id: workflow.id, name: workflow.name, path: workflow.path } } : {}),
    });
    return out;
  }
  if (change.kind === "pull_request_review.submitted") {
    const pr = pullFor(repo, change);
    const review = pr?.reviews.find((r) => r.id === change.id);
    if (pr && review)
      add("pull_request_review", "submitted", {
        review: reviewShape(ctx, repo, pr, review),
        pull_request: pullFull(ctx, repo, pr),
      });
    return out;
  }
  if (change.kind === "issue_comment.created" && change.number !== undefined) {
    const item = world.issueOrPull(repo, change.number);
    const comment = item?.comments.find((c) => c.id === change.id);
    if (item && comment)
      add("issue_comment", "created", {
        issue: issueShape(ctx, repo, item),
        comment: issueCommentShape(ctx, repo, item, comment),
      });
  }
  return out;
}
