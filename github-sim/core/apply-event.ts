/**
 * Applies one event of the scenario vocabulary (scenario-schema.ts) to the world: the same code
 * path serves timeline entries and `POST /_sim/events`, so an injected event and a scripted one
 * behave identically. Returns what was created or changed, for the caller to report.
 */
import { addCommitStatus, updateCheckRun } from "./actions-ci.js";
import { addIssueComment, changeLabels, openIssue, setIssueState } from "./actions-issues.js";
import {
  addReviewComment,
  mergePullRequest,
  openPullRequest,
  pushCommit,
  resolveThread,
  setDraft,
  setMergeable,
  setPullState,
  submitReview,
} from "./actions-pulls.js";
import { buildCommit } from "./builders.js";
import { startChecks, startCi } from "./ci-motion.js";
import type { SimRepo } from "./model.js";
import type { ScenarioEngine } from "./scenario-engine.js";
import type { ParsedSimEvent } from "./scenario-schema.js";
import type { World } from "./world.js";
import { WorldError } from "./world-error.js";

export interface EventResult {
  readonly type: string;
  readonly repo: string;
  readonly number?: number;
  readonly id?: number;
  readonly sha?: string;
  readonly version: number;
}

export interface EventContext {
  readonly world: World;
  readonly engine: ScenarioEngine;
  /** Repository used when an event names none. */
  readonly defaultRepo: string;
}

function checkIdFor(world: World, repo: SimRepo, event: Extract<ParsedSimEvent, { type: "check" }>): number {
  if (event.id !== undefined) return event.id;
  if (event.pr === undefined || !event.name) {
    throw new WorldError("INVALID", "a check event needs `id`, or `pr` and `name`");
  }
  const pr = world.requirePull(repo, event.pr);
  const commit = repo.commits.get(pr.headSha);
  const ids = (commit?.checkRunIds ?? []).filter((id) => repo.checkRuns.get(id)?.name === event.name);
  const id = ids[ids.length - 1];
  if (id === undefined) throw new WorldError("NOT_FOUND", `PR #${event.pr} has no check named ${event.name}`);
  return id;
}

function shaFor(
  world: World,
  repo: SimRepo,
  event: { sha?: string | undefined; pr?: number | undefined },
): string {
  if (event.sha) return event.sha;
  if (event.pr !== undefined) return world.requirePull(repo, event.pr).headSha;
  throw new WorldError("INVALID", "the event needs `sha` or `pr`");
}

export function applyEvent(ctx: EventContext, event: ParsedSimEvent): EventResult {
  const { world, engine } = ctx;
  const repo = world.requireRepo(event.repo ?? ctx.defaultRepo);
  const done = (extra: { number?: number; id?: number; sha?: string } = {}): EventResult => ({
    type: event.type,
    repo: repo.fullName,
    ...extra,
    version: world.version,
  });
  switch (event.type) {
    case "push": {
      const sha = pushCommit(world, repo, event);
      if (event.ci)
        startCi(world, engine, repo, {
          sha,
          branch: event.branch,
          spec: event.ci,
          at: world.now(),
          record: true,
        });
      if (event.checks) {
        startChecks(world, engine, repo, {
          sha,
          branch: event.branch,
          checks: event.checks,
          at: world.now(),
          record: true,
        });
      }
      return done({ sha });
    }
    case "check": {
      const id = checkIdFor(world, repo, event);
      updateCheckRun(world, repo, id, { status: event.status, conclusion: event.conclusion });
      return done({ id });
    }
    case "status": {
      const sha = shaFor(world, repo, event);
      const status = addCommitStatus(world, repo, sha, {
        context: event.context,
        state: event.state,
        description: event.description ?? null,
        targetUrl: event.targetUrl ?? null,
      });
      return done({ id: status.id, sha });
    }
    case "ci": {
      const sha = shaFor(world, repo, event);
      const branch =
        event.pr !== undefined
          ? world.requirePull(repo, event.pr).headRef
          : ([...repo.branches].find(([, head]) => head === sha)?.[0] ?? repo.defaultBranch);
      const run = startCi(world, engine, repo, {
        sha,
        branch,
        spec: event.ci,
        at: world.now(),
        record: true,
      });
      return done({ id: run.id, sha });
    }
    case "review": {
      const review = submitReview(world, repo, event.pr, event);
      return done({ number: event.pr, id: review.id });
    }
    case "comment": {
      const comment = addIssueComment(world, repo, event.number, {
        author: event.author ?? world.viewer,
        body: event.body,
      });
      return done({ number: event.number, id: comment.id });
    }
    case "review_comment": {
      const comment = addReviewComment(world, repo, event.pr, {
        ...event,
        author: event.author ?? world.viewer,
      });
      return done({ number: event.pr, id: comment.id });
    }
    case "resolve_thread":
      resolveThread(world, repo, event.pr, event.threadId, event.resolved);
      return done({ number: event.pr, id: event.threadId });
    case "merge":
      mergePullRequest(world, repo, event.pr, { method: event.method, by: event.by });
      return done({ number: event.pr });
    case "close":
    case "reopen": {
      const state = event.type === "close" ? "closed" : "open";
      if (repo.pulls.has(event.number)) setPullState(world, repo, event.number, state);
      else setIssueState(world, repo, event.number, state);
      return done({ number: event.number });
    }
    case "ready":
    case "draft":
      setDraft(world, repo, event.pr, event.type === "draft");
      return done({ number: event.pr });
    case "mergeable":
      setMergeable(world, repo, event.pr, event.mergeable, event.mergeState);
      return done({ number: event.pr });
    case "labels":
      changeLabels(world, repo, event.number, { add: event.add, remove: event.remove });
      return done({ number: event.number });
    case "open_pr": {
      const author = event.author ?? world.viewer;
      if (!repo.branches.has(event.head)) {
        buildCommit(world, repo, { branch: event.head, message: event.title, author, at: world.now() });
      }
      const pr = openPullRequest(world, repo, { ...event, author });
      if (event.ci) {
        const specs = Array.isArray(event.ci) ? event.ci : [event.ci];
        for (const spec of specs) {
          startCi(world, engine, repo, {
            sha: pr.headSha,
            branch: pr.headRef,
            spec,
            at: world.now(),
            record: true,
          });
        }
      }
      if (event.checks) {
        startChecks(world, engine, repo, {
          sha: pr.headSha,
          branch: pr.headRef,
          checks: event.checks,
          at: world.now(),
          record: true,
        });
      }
      return done({ number: pr.number, sha: pr.headSha });
    }
    case "open_issue": {
      const issue = openIssue(world, repo, { ...event, author: event.author ?? world.viewer });
      return done({ number: issue.number });
    }
  }
}
