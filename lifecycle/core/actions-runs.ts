/**
 * The repository's Actions guard: one conditional `GET /repos/o/r/actions/runs` per cycle. Its
 * ETag is a hash of the page, and a run's `updated_at` follows its jobs, so a 304 says no run on
 * the page moved (no job started or finished, no run was added); a 200 is diffed against the runs
 * seen last time to name exactly the runs that moved, and so the heads (and PRs) whose CI moved.
 *
 * The page holds the newest runs by creation; when it is full, runs older than its oldest are not
 * watched, so a head is covered only when one of its runs is newer than that (coverage()).
 */
import { asArray, asNumber, asString, asTime, dig } from "./read-json.js";
import { parseRepo } from "./repo-ref.js";

export interface RunMark {
  readonly id: number;
  readonly headSha: string;
  readonly branch: string | null;
  readonly createdAt: number;
  /** status / conclusion / attempt / updated_at: a different mark is a move. */
  readonly mark: string;
}

export interface RunsPage {
  readonly runs: readonly RunMark[];
  /** The page lists every run of the repository (not cut by paging). */
  readonly complete: boolean;
}

export function actionsRunsPath(repo: string, pageSize: number): string {
  const ref = parseRepo(repo);
  if (!ref) throw new TypeError(`not an owner/name repository: ${JSON.stringify(repo)}`);
  // Without the pull_requests field: it follows PRs opening and closing, which is not CI motion.
  return `/repos/${ref.owner}/${ref.name}/actions/runs?per_page=${pageSize}&exclude_pull_requests=true`;
}

/** `GET …/actions/runs` → the runs on the page; undefined when the body is not a runs list. */
export function parseRunsPage(body: unknown): RunsPage | undefined {
  const list = dig(body, "workflow_runs");
  if (!Array.isArray(list)) return undefined;
  const runs: RunMark[] = [];
  for (const item of asArray(list)) {
    const id = asNumber(dig(item, "id"));
    const headSha = asString(dig(item, "head_sha"));
    const createdAt = asTime(dig(item, "created_at"));
    if (id === undefined || headSha === undefined || createdAt === null) return undefined;
    const mark = [
      asString(dig(item, "status")) ?? "",
      asString(dig(item, "conclusion")) ?? "",
      asNumber(dig(item, "run_attempt")) ?? 1,
      asString(dig(item, "updated_at")) ?? "",
    ].join("/");
    runs.push({
      id,
      headSha: headSha.toLowerCase(),
      branch: asString(dig(item, "head_branch")) ?? null,
      createdAt,
      mark,
    });
  }
  const total = asNumber(dig(body, "total_count")) ?? runs.length;
  return { runs, complete: total <= runs.length };
}

/**
 * The runs that moved since the last page: new ones and those with another mark. With no earlier
 * page (the guard's first read) nothing is known to have moved: the caller baselines.
 */
export function movedRuns(before: ReadonlyMap<number, string> | null, page: RunsPage): RunMark[] {
  if (before === null) return [];
  return page.runs.filter((run) => before.get(run.id) !== run.mark);
}

export interface RunsCoverage {
  /** Heads (lower-case SHA) with a run on the page → the newest such run's creation time. */
  readonly heads: ReadonlyMap<string, number>;
  /** The oldest creation time on a full page (runs before it are not watched); null: complete. */
  readonly oldestWatched: number | null;
}

export function coverage(page: RunsPage): RunsCoverage {
  const heads = new Map<string, number>();
  let oldest: number | null = null;
  for (const run of page.runs) {
    heads.set(run.headSha, Math.max(heads.get(run.headSha) ?? Number.NEGATIVE_INFINITY, run.createdAt));
    oldest = oldest === null ? run.createdAt : Math.min(oldest, run.createdAt);
  }
  return { heads, oldestWatched: page.complete ? null : oldest };
}

/**
 * Does the page watch every run of this head? Yes when the page lists every run of the
 * repository, or when the head has a run newer than the page's oldest (the runs of one push are
 * created together, so the page does not cut them).
 */
export function watchesHead(cover: RunsCoverage, sha: string): boolean {
  if (cover.oldestWatched === null) return true;
  const newest = cover.heads.get(sha.toLowerCase());
  return newest !== undefined && newest > cover.oldestWatched;
}
