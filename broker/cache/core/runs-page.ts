/**
 * Answers derived from the repository's runs page (docs/caching.md, "Answers from the runs page").
 * The Actions guard reads `actions/runs?per_page=100&exclude_pull_requests=true` every cycle; each
 * entry of that page is the same workflow-run object `actions/runs/{id}?exclude_pull_requests=true`
 * answers (GitHub documents one `workflow-run` schema for both:
 * https://docs.github.com/en/rest/actions/workflow-runs), and a complete page filtered by
 * `head_branch` is what `actions/runs?branch=B&exclude_pull_requests=true` lists. So a run's record
 * and a branch's run list can be built from the page the guard just read instead of being fetched
 * (charged) again: after a run moved, its refresh costs nothing, and `gh run list --branch` /
 * `gh run watch`'s first reads are served from a page at most one cycle old.
 *
 * Invariants:
 * - Only the exact variants gh 2.23 asks for are derived: `exclude_pull_requests=true` (the page
 *   has no `pull_requests`), no filter but `branch`, the first page only, and a branch list only
 *   from a page that provably holds every run of the branch (it lists every run of the repository,
 *   or the branch's complete list stored before is all on it and older than the page reaches:
 *   pageCoversBranch), at most `per_page` of them (so no Link header is owed).
 * - A held page is used only while every tag the derived answer reads is at the generation it had
 *   when the page was read, moved since only by the guard's own invalidations of that page
 *   (`noteOwnMoves`): a write (a re-run) or a webhook that moved them means the page may be behind.
 * - A page is usable for `maxAgeMs` after the guard last confirmed it (a 200 or a 304 of its ETag).
 * Pure: no I/O; the caller hands in generations and `now`.
 */
import type { Tag } from "./facets.js";

const REPO_PATH = /^\/repos\/([^/]+)\/([^/?#]+)(\/[^?#]*)(?:\?(.*))?$/;

export type RunsRead =
  | { readonly kind: "page"; readonly repo: string }
  | { readonly kind: "run"; readonly repo: string; readonly id: number }
  | { readonly kind: "branch"; readonly repo: string; readonly branch: string; readonly perPage: number };

/** GitHub's default page size for the runs list. */
const DEFAULT_PER_PAGE = 30;

function decoded(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/** `owner/name`, lower-cased: the held page's key. */
export function runsRepoKey(owner: string, name: string): string {
  return `${owner}/${name}`.toLowerCase();
}

/**
 * What a GET of this path is in terms of the runs page: the page itself (unfiltered, first page,
 * without pull requests), a run's record, a branch's run list; undefined for anything else.
 */
export function runsRead(path: string): RunsRead | undefined {
  const match = REPO_PATH.exec(path);
  if (!match) return undefined;
  const owner = decoded(match[1] ?? "");
  const name = decoded(match[2] ?? "");
  if (!owner || !name) return undefined;
  const repo = runsRepoKey(owner, name);
  const rest = match[3] ?? "";
  const query = new URLSearchParams(match[4] ?? "");
  if (query.get("exclude_pull_requests") !== "true") return undefined;
  const keys = [...query.keys()];
  const run = /^\/actions\/runs\/(\d+)\/?$/.exec(rest);
  if (run) return keys.length === 1 ? { kind: "run", repo, id: Number(run[1]) } : undefined;
  if (!/^\/actions\/runs\/?$/.test(rest)) return undefined;
  if (keys.some((k) => !["exclude_pull_requests", "per_page", "page", "branch"].includes(k)))
    return undefined;
  if (new Set(keys).size !== keys.length) return undefined;
  const page = query.get("page");
  if (page !== null && page !== "1") return undefined;
  const perPageText = query.get("per_page");
  const perPage = perPageText === null ? DEFAULT_PER_PAGE : Number(perPageText);
  if (!Number.isInteger(perPage) || perPage < 1) return undefined;
  const branch = query.get("branch");
  if (branch === null) return { kind: "page", repo };
  return branch ? { kind: "branch", repo, branch, perPage } : undefined;
}

interface PageRun {
  readonly id: number;
  readonly head_branch?: unknown;
}

export interface RunsPageBody {
  readonly total_count: number;
  readonly workflow_runs: readonly PageRun[];
}

/** The page's body when it is a runs list whose entries all carry an id; undefined otherwise. */
export function parseRunsPageBody(body: Buffer | string): RunsPageBody | undefined {
  let value: unknown;
  try {
    value = JSON.parse(typeof body === "string" ? body : body.toString("utf8"));
  } catch {
    return undefined;
  }
  const runs = (value as { workflow_runs?: unknown } | null)?.workflow_runs;
  const total = (value as { total_count?: unknown } | null)?.total_count;
  if (!Array.isArray(runs) || typeof total !== "number") return undefined;
  if (!runs.every((r) => typeof (r as PageRun | null)?.id === "number")) return undefined;
  return { total_count: total, workflow_runs: runs as PageRun[] };
}

function createdAt(run: PageRun | undefined): number {
  const text = (run as { created_at?: unknown } | undefined)?.created_at;
  return typeof text === "string" ? Date.parse(text) : Number.NaN;
}

/**
 * A cut page answers for a branch when the branch's list stored before (`stored`, the same read's
 * earlier answer) was complete, every run on it is on the page, and the page reaches back past the
 * newest of them: a run of the branch created since was created after that one, so it is on the
 * page; every older one was on the stored list, so it is on the page too.
 */
function pageCoversBranch(page: RunsPageBody, stored: RunsPageBody | undefined): boolean {
  if (page.total_count <= page.workflow_runs.length) return true;
  if (!stored || stored.workflow_runs.length === 0) return false;
  if (stored.total_count !== stored.workflow_runs.length) return false;
  const onPage = new Set(page.workflow_runs.map((r) => r.id));
  if (!stored.workflow_runs.every((r) => onPage.has(r.id))) return false;
  const oldest = Math.min(...page.workflow_runs.map(createdAt));
  const newestStored = Math.max(...stored.workflow_runs.map(createdAt));
  // Strictly older: runs created in the same second as the page's oldest may be cut off it.
  return Number.isFinite(oldest) && Number.isFinite(newestStored) && oldest < newestStored;
}

/**
 * The body GitHub would answer for this read, built from the page (and, for a branch's list on a
 * cut page, the list stored before: pageCoversBranch); undefined when it cannot be.
 */
export function deriveFromPage(
  read: RunsRead,
  page: RunsPageBody,
  stored?: RunsPageBody,
): string | undefined {
  if (read.kind === "run") {
    const run = page.workflow_runs.find((r) => r.id === read.id);
    return run ? JSON.stringify(run) : undefined;
  }
  if (read.kind !== "branch") return undefined;
  // Runs off a cut page could belong to the branch: only a page that provably holds all of them answers.
  if (!pageCoversBranch(page, stored)) return undefined;
  const runs = page.workflow_runs.filter((r) => r.head_branch === read.branch);
  if (runs.length > read.perPage) return undefined;
  return JSON.stringify({ total_count: runs.length, workflow_runs: runs });
}

export interface HeldPage {
  readonly body: RunsPageBody;
  /** The ETag the page came with: a 304 of it confirms the page again. */
  readonly etag: string | undefined;
  /** The page's content type, given to derived answers. */
  readonly contentType: string;
  /** When the request that read the page was sent. */
  readonly sentAt: number;
  /** When the guard last confirmed it (the send time of the latest 200 or 304). */
  readonly confirmedAt: number;
  /** The tags' generations when it was read, moved since only by the page's own invalidations. */
  readonly generations: Readonly<Record<Tag, number>>;
}

/** Why a held page may not answer a read, or the body it answers with. */
export type PageAnswer = { readonly body: string } | { readonly refused: "age" | "moved" | "absent" };

export interface PageAnswerInput {
  readonly read: RunsRead;
  readonly held: HeldPage | undefined;
  /** The generations of the tags the derived answer reads, as the cache read them for this request. */
  readonly generations: Readonly<Record<Tag, number>>;
  /** When the answer currently stored for the read was stored (0: none). */
  readonly storedAt: number;
  /** That answer's body, when it is a runs list (a branch's list on a cut page needs it). */
  readonly stored?: RunsPageBody | undefined;
  readonly now: number;
  readonly maxAgeMs: number;
}

/** The body to answer with, when the held page is recent, current and newer than what is stored. */
export function answerFromPage(input: PageAnswerInput): PageAnswer {
  const { held } = input;
  if (!held) return { refused: "absent" };
  if (input.maxAgeMs <= 0 || input.now - held.confirmedAt > input.maxAgeMs) return { refused: "age" };
  // Never older than what is already stored (an agent's own read after the page).
  if (input.storedAt > held.sentAt) return { refused: "age" };
  for (const [tag, generation] of Object.entries(input.generations)) {
    if ((held.generations[tag] ?? 0) !== generation) return { refused: "moved" };
  }
  const body = deriveFromPage(input.read, held.body, input.stored);
  return body === undefined ? { refused: "absent" } : { body };
}

/**
 * The held page with the generations its own invalidations moved to: a move from the generation
 * the page holds to the next is the page's doing; any other leaves the tag mismatched (refused).
 */
export function withOwnMoves(
  held: HeldPage,
  moves: Readonly<Record<Tag, readonly [number, number]>>,
): HeldPage {
  const generations: Record<Tag, number> = { ...held.generations };
  for (const [tag, [before, after]] of Object.entries(moves)) {
    if ((generations[tag] ?? 0) === before) generations[tag] = after;
  }
  return { ...held, generations };
}
