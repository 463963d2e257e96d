/**
 * What a guard that answered 200 says. A moved ETag is not yet a change worth a GraphQL refresh:
 * the body is compared with the facts held, so a new ETag that describes what is already known
 * (the first read of a guard, a head SHA already refreshed) costs nothing more, and what the body
 * itself describes completely (check runs, statuses) is applied without GraphQL.
 *
 * - PR list pages (sorted by update, newest first): PRs updated after the facts held, or whose
 *   head or state differ, are changed; PRs whose head branch is one a session waits on are
 *   detections. Reading stops at the first PR older than the previous walk's newest (the
 *   high-water mark): nothing below it can have changed since.
 * - check runs / combined status: the checks themselves. New or further-along checks are applied
 *   as observations (no GraphQL); only a list cut by paging sends the PR to a GraphQL re-read.
 * - review comments: moved when the newest comment (id + updated_at) is not the one seen last.
 */
import { type CheckFact, checkKey, compareCheckVersions, type PrFacts, type PrState } from "./pr-facts.js";
import { asArray, asNumber, asObject, asString, asTime, dig } from "./read-json.js";

export interface ListedPr {
  readonly number: number;
  readonly updatedAt: number;
  readonly state: PrState;
  readonly headRef: string | null;
  readonly headSha: string | null;
  /** The head repository's full name, when the API gave one (forks differ from the base). */
  readonly headRepo: string | null;
}

export function parsePullList(body: unknown): ListedPr[] | undefined {
  if (!Array.isArray(body)) return undefined;
  const out: ListedPr[] = [];
  for (const item of body) {
    const number = asNumber(dig(item, "number"));
    const updatedAt = asTime(dig(item, "updated_at"));
    if (number === undefined || updatedAt === null) continue;
    const merged = asString(dig(item, "merged_at")) !== undefined;
    const open = asString(dig(item, "state")) === "open";
    out.push({
      number,
      updatedAt,
      state: open ? "OPEN" : merged ? "MERGED" : "CLOSED",
      headRef: asString(dig(item, "head", "ref")) ?? null,
      headSha: asString(dig(item, "head", "sha")) ?? null,
      headRepo: asString(dig(item, "head", "repo", "full_name")) ?? null,
    });
  }
  return out;
}

export interface PageScanInput {
  readonly repo: string;
  readonly items: readonly ListedPr[];
  /** Facts held per PR number of this repository (undefined when the PR has not been read yet). */
  readonly known: ReadonlyMap<number, Pick<PrFacts, "updatedAt" | "headSha" | "state"> | undefined>;
  /** Branches sessions wait on (no PR yet, or their PR is closed) → the PR numbers they hold. */
  readonly waitingBranches: ReadonlyMap<string, ReadonlySet<number>>;
  readonly highWater: number | null;
}

export interface PageScan {
  readonly changed: number[];
  readonly detected: { readonly branch: string; readonly pr: ListedPr }[];
  /** A PR older than the high-water mark was reached: later pages hold nothing new. */
  readonly reachedKnown: boolean;
  /** Newest updated_at on the page. */
  readonly newest: number | null;
}

export function scanPullPage(input: PageScanInput): PageScan {
  const changed: number[] = [];
  const detected: { branch: string; pr: ListedPr }[] = [];
  let reachedKnown = false;
  let newest: number | null = null;
  for (const item of input.items) {
    newest = newest === null ? item.updatedAt : Math.max(newest, item.updatedAt);
    if (input.highWater !== null && item.updatedAt < input.highWater) {
      reachedKnown = true;
      break;
    }
    if (input.known.has(item.number)) {
      const facts = input.known.get(item.number);
      if (
        facts === undefined ||
        item.updatedAt > facts.updatedAt ||
        (item.headSha !== null && item.headSha !== facts.headSha) ||
        item.state !== facts.state
      ) {
        changed.push(item.number);
      }
    }
    const sameRepo = item.headRepo === null || item.headRepo.toLowerCase() === input.repo.toLowerCase();
    const waiting = item.headRef === null ? undefined : input.waitingBranches.get(item.headRef);
    if (sameRepo && waiting && !waiting.has(item.number) && item.headRef !== null) {
      detected.push({ branch: item.headRef, pr: item });
    }
  }
  return { changed, detected, reachedKnown, newest };
}

/** Checks as a check-runs or combined-status guard read them. */
export interface GuardChecks {
  readonly checks: CheckFact[];
  /** The body lists every check of its kind (not cut by paging). */
  readonly complete: boolean;
}

/** `GET …/commits/{sha}/check-runs` → check facts (seenAt = when the guard read them). */
export function checkRunsFromBody(body: unknown, seenAt: number): GuardChecks | undefined {
  if (!asObject(body)) return undefined;
  const runs = asArray(dig(body, "check_runs"));
  const checks: CheckFact[] = [];
  for (const run of runs) {
    const name = asString(dig(run, "name"));
    const status = asString(dig(run, "status"))?.toUpperCase();
    if (!name || !status) return undefined;
    checks.push({
      kind: "check-run",
      name,
      status,
      conclusion: asString(dig(run, "conclusion"))?.toUpperCase() ?? null,
      url: asString(dig(run, "details_url")) ?? asString(dig(run, "html_url")) ?? null,
      startedAt: asTime(dig(run, "started_at")),
      completedAt: asTime(dig(run, "completed_at")),
      seenAt,
    });
  }
  const total = asNumber(dig(body, "total_count")) ?? checks.length;
  return { checks, complete: total <= checks.length };
}

/** `GET …/commits/{sha}/status` (the combined status: the newest status per context) → check facts. */
export function statusesFromBody(body: unknown, seenAt: number): GuardChecks | undefined {
  if (!asObject(body)) return undefined;
  const statuses = asArray(dig(body, "statuses"));
  const checks: CheckFact[] = [];
  for (const status of statuses) {
    const name = asString(dig(status, "context"));
    const state = asString(dig(status, "state"))?.toUpperCase();
    if (!name || !state) return undefined;
    const final = state === "SUCCESS" || state === "FAILURE" || state === "ERROR";
    const created = asTime(dig(status, "created_at"));
    checks.push({
      kind: "status-context",
      name,
      status: state,
      conclusion: final ? state : null,
      url: asString(dig(status, "target_url")) ?? null,
      startedAt: created,
      completedAt: final ? created : null,
      seenAt,
    });
  }
  const total = asNumber(dig(body, "total_count")) ?? checks.length;
  return { checks, complete: total <= checks.length };
}

/**
 * What to do with the checks a guard read. When both the guard's list and the facts are complete,
 * the checks that are new or further along are applied directly — CI moving costs no GraphQL at
 * all, and the rollup is recomputed from the full list. When either list was cut by paging (the
 * rollup cannot be recomputed) or nothing is known yet, a difference means a GraphQL re-read.
 */
export function checksToApply(
  facts: PrFacts | undefined,
  read: GuardChecks | undefined,
): CheckFact[] | "refresh" {
  if (!facts || !read) return "refresh";
  const held = new Map(facts.checks.map((c) => [checkKey(c), c]));
  const newer = read.checks.filter((check) => {
    const known = held.get(checkKey(check));
    if (!known) return true;
    return compareCheckVersions(check, known) > 0;
  });
  if (newer.length === 0) return [];
  return read.complete && facts.checksTotal <= facts.checks.length ? newer : "refresh";
}

/** A mark for the newest review comment ("id@updated_at"), or "none" when there is none. */
export function reviewCommentsMark(body: unknown): string | undefined {
  if (!Array.isArray(body)) return undefined;
  const first = body[0];
  if (first === undefined) return "none";
  const id = asNumber(dig(first, "id"));
  const updated = asString(dig(first, "updated_at"));
  return id === undefined ? undefined : `${id}@${updated ?? ""}`;
}
