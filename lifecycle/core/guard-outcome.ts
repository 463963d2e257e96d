/**
 * What a guard that answered 200 says. A moved ETag is not yet a change worth a GraphQL refresh:
 * the body is compared with the facts held, so a new ETag that describes what is already known
 * (the first read of a guard, a head SHA already refreshed) costs nothing more.
 *
 * - PR list pages (sorted by update, newest first): PRs updated after the facts held, or whose
 *   head or state differ, are changed; PRs whose head branch is one a session waits on are
 *   detections. Reading stops at the first PR older than the previous walk's newest (the
 *   high-water mark): nothing below it can have changed since.
 * - check runs / combined status: moved when any run or context differs from the held checks.
 * - review comments: moved when the newest comment (id + updated_at) is not the one seen last.
 */
import type { PrFacts, PrState } from "./pr-facts.js";
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

function sameCheck(
  facts: PrFacts,
  kind: "check-run" | "status-context",
  name: string,
  status: string,
  conclusion: string | null,
): boolean | undefined {
  const held = facts.checks.find((c) => c.kind === kind && c.name === name);
  if (!held) return facts.checksTotal > facts.checks.length ? undefined : false;
  return held.status === status && (held.conclusion ?? null) === conclusion;
}

/** True when the check-runs body shows a run the facts do not describe. */
export function checkRunsMoved(body: unknown, facts: PrFacts | undefined): boolean {
  if (!facts) return true;
  const runs = asArray(dig(body, "check_runs"));
  if (!asObject(body)) return true;
  for (const run of runs) {
    const name = asString(dig(run, "name"));
    const status = asString(dig(run, "status"))?.toUpperCase();
    if (!name || !status) continue;
    const conclusion = asString(dig(run, "conclusion"))?.toUpperCase() ?? null;
    if (sameCheck(facts, "check-run", name, status, conclusion) === false) return true;
  }
  const total = asNumber(dig(body, "total_count"));
  const heldRuns = facts.checks.filter((c) => c.kind === "check-run").length;
  return total !== undefined && facts.checksTotal <= facts.checks.length && total > heldRuns;
}

/** True when the combined-status body shows a context the facts do not describe. */
export function commitStatusMoved(body: unknown, facts: PrFacts | undefined): boolean {
  if (!facts || !asObject(body)) return true;
  for (const status of asArray(dig(body, "statuses"))) {
    const name = asString(dig(status, "context"));
    const state = asString(dig(status, "state"))?.toUpperCase();
    if (!name || !state) continue;
    const final = state === "SUCCESS" || state === "FAILURE" || state === "ERROR";
    if (sameCheck(facts, "status-context", name, state, final ? state : null) === false) return true;
  }
  return false;
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
