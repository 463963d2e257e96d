/**
 * GitHub webhook payloads → what they mean for watched sessions: which PRs, branches and head SHAs
 * they touch (to find the sessions), and the partial facts they carry that can be applied at once
 * (a pull_request's state/draft/head, a check run, a commit status) before the refresh that
 * confirms them. Reviews and comments carry nothing applicable (GitHub computes the review
 * decision and thread state), so they only ask for a refresh.
 * Payloads are untrusted input even after the signature check: nothing here throws.
 */
import type { PrObservation } from "./merge-observation.js";
import type { CheckFact } from "./pr-facts.js";
import { asArray, asBoolean, asNumber, asObject, asString, asTime, dig } from "./read-json.js";
import { isValidPrNumber, parseRepo } from "./repo-ref.js";

export const HANDLED_WEBHOOK_EVENTS = [
  "pull_request",
  "pull_request_review",
  "pull_request_review_comment",
  "check_run",
  "check_suite",
  "workflow_run",
  "workflow_job",
  "status",
  "push",
  "issue_comment",
] as const;
export type HandledWebhookEvent = (typeof HANDLED_WEBHOOK_EVENTS)[number];

export function isHandledWebhookEvent(name: string): name is HandledWebhookEvent {
  return (HANDLED_WEBHOOK_EVENTS as readonly string[]).includes(name);
}

/** Sessions to look at again now, and facts to apply to them first. */
export interface RefreshTarget {
  readonly repo: string;
  readonly prNumbers?: readonly number[];
  readonly branches?: readonly string[];
  readonly headShas?: readonly string[];
  readonly observations?: readonly PrObservation[];
  /** Why (the webhook event and action), for logs and invalidation. */
  readonly reason: string;
  /**
   * The receiver already moved the Actions answers this event concerns, precisely (the broker's
   * webhook patcher): the lifecycle's invalidation then leaves every Actions answer alone.
   */
  readonly actionsMoved?: boolean;
  /**
   * The receiver moved every (object, facet) this event changes, precisely and gathered (the
   * broker's webhook patcher): the lifecycle invalidates nothing for it, it only applies the facts
   * and re-reads what the payload did not carry.
   */
  readonly moved?: boolean;
}

export type WebhookSignal =
  | { readonly kind: "target"; readonly target: RefreshTarget }
  | { readonly kind: "ignored"; readonly reason: string };

function numbers(values: readonly unknown[]): number[] {
  return values.map((v) => asNumber(dig(v, "number"))).filter(isValidPrNumber);
}

function pullRequestSignal(repo: string, payload: unknown, action: string, now: number): WebhookSignal {
  const pr = asObject(dig(payload, "pull_request"));
  const number = asNumber(pr?.number);
  if (!pr || !isValidPrNumber(number)) return { kind: "ignored", reason: "pull_request without a number" };
  const branch = asString(dig(pr, "head", "ref"));
  const observations: PrObservation[] = [];
  const updatedAt = asTime(pr.updated_at);
  const state = asString(pr.state);
  if (updatedAt !== null && (state === "open" || state === "closed")) {
    const headSha = asString(dig(pr, "head", "sha"));
    const isDraft = asBoolean(pr.draft);
    const title = asString(pr.title);
    observations.push({
      kind: "pr-event",
      repo,
      number,
      state: state === "open" ? "OPEN" : asBoolean(pr.merged) || asString(pr.merged_at) ? "MERGED" : "CLOSED",
      updatedAt,
      ...(headSha ? { headSha } : {}),
      ...(isDraft === undefined ? {} : { isDraft }),
      ...(title === undefined ? {} : { title }),
      observedAt: now,
    });
  }
  return {
    kind: "target",
    target: {
      repo,
      prNumbers: [number],
      ...(branch ? { branches: [branch] } : {}),
      observations,
      reason: `pull_request.${action}`,
    },
  };
}

function checkRunSignal(repo: string, payload: unknown, action: string, now: number): WebhookSignal {
  const run = asObject(dig(payload, "check_run"));
  const sha = asString(run?.head_sha);
  const name = asString(run?.name);
  if (!run || !sha) return { kind: "ignored", reason: "check_run without a head SHA" };
  const status = asString(run.status)?.toUpperCase();
  const check: CheckFact | undefined =
    name && status
      ? {
          kind: "check-run",
          name,
          status,
          conclusion: asString(run.conclusion)?.toUpperCase() ?? null,
          url: asString(run.details_url) ?? asString(run.html_url) ?? null,
          startedAt: asTime(run.started_at),
          completedAt: asTime(run.completed_at),
          seenAt: now,
        }
      : undefined;
  const branch = asString(dig(run, "check_suite", "head_branch"));
  return {
    kind: "target",
    target: {
      repo,
      prNumbers: numbers(asArray(run.pull_requests)),
      headShas: [sha],
      ...(branch ? { branches: [branch] } : {}),
      observations: check ? [{ kind: "check", repo, headSha: sha, check }] : [],
      reason: `check_run.${action}`,
    },
  };
}

function statusSignal(repo: string, payload: unknown, now: number): WebhookSignal {
  const sha = asString(dig(payload, "sha"));
  const context = asString(dig(payload, "context"));
  const state = asString(dig(payload, "state"))?.toUpperCase();
  if (!sha) return { kind: "ignored", reason: "status without a SHA" };
  const created = asTime(dig(payload, "created_at")) ?? asTime(dig(payload, "updated_at"));
  const final = state === "SUCCESS" || state === "FAILURE" || state === "ERROR";
  const observations: PrObservation[] =
    context && state
      ? [
          {
            kind: "check",
            repo,
            headSha: sha,
            check: {
              kind: "status-context",
              name: context,
              status: state,
              conclusion: final ? state : null,
              url: asString(dig(payload, "target_url")) ?? null,
              startedAt: created,
              completedAt: final ? created : null,
              seenAt: now,
            },
          },
        ]
      : [];
  const branches = asArray(dig(payload, "branches"))
    .map((b) => asString(dig(b, "name")))
    .filter((b): b is string => b !== undefined);
  return { kind: "target", target: { repo, headShas: [sha], branches, observations, reason: "status" } };
}

export function interpretWebhook(event: string, payload: unknown, now: number): WebhookSignal {
  if (!isHandledWebhookEvent(event)) return { kind: "ignored", reason: `event ${event} is not handled` };
  const repo = asString(dig(payload, "repository", "full_name"));
  if (!repo || !parseRepo(repo)) return { kind: "ignored", reason: "payload names no repository" };
  const action = asString(dig(payload, "action")) ?? "";
  switch (event) {
    case "pull_request":
      return pullRequestSignal(repo, payload, action, now);
    case "pull_request_review":
    case "pull_request_review_comment": {
      const number = asNumber(dig(payload, "pull_request", "number"));
      if (!isValidPrNumber(number)) return { kind: "ignored", reason: `${event} without a PR number` };
      return { kind: "target", target: { repo, prNumbers: [number], reason: `${event}.${action}` } };
    }
    case "check_run":
      return checkRunSignal(repo, payload, action, now);
    case "check_suite": {
      const suite = asObject(dig(payload, "check_suite"));
      const sha = asString(suite?.head_sha);
      if (!suite || !sha) return { kind: "ignored", reason: "check_suite without a head SHA" };
      const branch = asString(suite.head_branch);
      return {
        kind: "target",
        target: {
          repo,
          prNumbers: numbers(asArray(suite.pull_requests)),
          headShas: [sha],
          ...(branch ? { branches: [branch] } : {}),
          reason: `check_suite.${action}`,
        },
      };
    }
    case "workflow_run":
    case "workflow_job": {
      // The run or job's head: its PRs' checks moved. GitHub Actions check runs also come as
      // check_run deliveries (with the facts to apply); these only ask for the re-read.
      const object = asObject(dig(payload, event));
      const sha = asString(object?.head_sha);
      if (!object || !sha) return { kind: "ignored", reason: `${event} without a head SHA` };
      const branch = asString(object.head_branch);
      return {
        kind: "target",
        target: {
          repo,
          prNumbers: numbers(asArray(object.pull_requests)),
          headShas: [sha],
          ...(branch ? { branches: [branch] } : {}),
          reason: `${event}.${action}`,
        },
      };
    }
    case "status":
      return statusSignal(repo, payload, now);
    case "push": {
      const ref = asString(dig(payload, "ref"));
      if (!ref?.startsWith("refs/heads/")) return { kind: "ignored", reason: "push to a non-branch ref" };
      const after = asString(dig(payload, "after"));
      return {
        kind: "target",
        target: {
          repo,
          branches: [ref.slice("refs/heads/".length)],
          ...(after && !/^0+$/.test(after) ? { headShas: [after] } : {}),
          reason: "push",
        },
      };
    }
    case "issue_comment": {
      if (!asObject(dig(payload, "issue", "pull_request")))
        return { kind: "ignored", reason: "comment on an issue" };
      const number = asNumber(dig(payload, "issue", "number"));
      if (!isValidPrNumber(number)) return { kind: "ignored", reason: "issue_comment without a number" };
      return { kind: "target", target: { repo, prNumbers: [number], reason: `issue_comment.${action}` } };
    }
  }
}

/**
 * Whether the lifecycle must re-read the PRs a delivery names, or the payload already carried the
 * fact it reports (decision 0021, amended): a `pull_request` payload is the PR's state, draft and
 * head (applied as an observation), a `check_run` or `status` payload is that check's status and
 * conclusion, and a `workflow_run` / `workflow_job` is reported again, with its facts, as the
 * check run GitHub Actions makes of it. What a payload does not carry is re-read: a new PR
 * (`opened`) or a new head (`synchronize`: mergeability, reviewers), and what GitHub computes
 * (review decision, thread state, comments): reviews, comments, pushes, check suites.
 */
export function needsReread(target: RefreshTarget): boolean {
  const [event = "", action = ""] = target.reason.split(".");
  const observed = (target.observations ?? []).length > 0;
  switch (event) {
    case "pull_request":
      return !observed || action === "opened" || action === "synchronize";
    case "check_run":
    case "status":
      return !observed;
    case "workflow_run":
    case "workflow_job":
      return false;
    default:
      return true;
  }
}
