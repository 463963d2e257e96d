/**
 * Final answers: REST answers about finished CI, which GitHub never changes again. Once the stored
 * answer says so, it is kept as final: served as a HIT for `finalAnswerMs` whatever tags move, never
 * registered for refresh (docs/caching.md, "Final answers"). Pure: the cache layer hands in the path,
 * the body and what the cache knows of the job.
 *
 *   endpoint                            final when
 *   actions/jobs/{id}, check-runs/{id}  the body's `status` is `completed` (a re-run is a new job id)
 *   check-runs/{id}/annotations         the check run was known completed BEFORE the request was sent
 *                                       (the body is a list without a status; `gh run watch` reads it
 *                                       while the run is running, and those answers stay ordinary)
 *   actions/jobs/{id}/logs              any 2xx (a log exists only once the job finished)
 * A run (its record, its jobs list, its logs) is never final, even completed: a re-run is a new
 * attempt of the same run id, with other jobs and another status. Kept final behind the run's own tag
 * they were served up to 561 s stale at 136 sessions, whenever the Actions guard lagged behind a
 * re-run (docs/BENCHMARKS.md); as ordinary answers their freshness bounds that. Final answers follow
 * no tag at all.
 */
export type FinalEndpointKind = "job" | "annotations" | "log";

export interface FinalEndpoint {
  readonly kind: FinalEndpointKind;
  readonly owner: string;
  readonly name: string;
  /** The job (check run) id. */
  readonly id: string;
}

const REPO_PATH = /^\/repos\/([^/]+)\/([^/?#]+)(\/[^?#]*)(\?.*)?$/;

/** The final-answer endpoint a GET of this path is, or undefined. */
export function finalEndpoint(path: string): FinalEndpoint | undefined {
  const match = REPO_PATH.exec(path);
  if (!match) return undefined;
  let owner: string;
  let name: string;
  try {
    owner = decodeURIComponent(match[1] ?? "");
    name = decodeURIComponent(match[2] ?? "");
  } catch {
    return undefined;
  }
  const rest = match[3] ?? "";
  const at = (kind: FinalEndpointKind, id: string | undefined): FinalEndpoint | undefined =>
    id ? { kind, owner, name, id } : undefined;
  let m = /^\/(?:actions\/jobs|check-runs)\/(\d+)\/?$/.exec(rest);
  if (m) return at("job", m[1]);
  m = /^\/check-runs\/(\d+)\/annotations\/?$/.exec(rest);
  if (m) return at("annotations", m[1]);
  m = /^\/actions\/jobs\/(\d+)\/logs\/?$/.exec(rest);
  if (m) return at("log", m[1]);
  return undefined;
}

function parse(body: Buffer | string): unknown {
  try {
    return JSON.parse(typeof body === "string" ? body : body.toString("utf8"));
  } catch {
    return undefined;
  }
}

function completed(value: unknown): boolean {
  return (
    typeof value === "object" && value !== null && (value as { status?: unknown }).status === "completed"
  );
}

export interface FinalFacts {
  readonly status: number;
  readonly body: Buffer | string;
  /** For annotations: the cache knew the check run completed before this request was sent. */
  readonly jobCompletedBefore?: boolean;
}

/** Whether this answer of this endpoint is final. Only 2xx answers can be. */
export function isFinalAnswer(endpoint: FinalEndpoint, facts: FinalFacts): boolean {
  if (facts.status < 200 || facts.status >= 300) return false;
  switch (endpoint.kind) {
    case "log":
      return true;
    case "annotations":
      return facts.jobCompletedBefore === true;
    case "job":
      return completed(parse(facts.body));
  }
}

/**
 * Job (check run) ids an answer shows completed: a job by id, a run's jobs list, a commit's check
 * runs. What lets a later annotations answer of those ids be final.
 */
export function completedJobIds(path: string, status: number, body: Buffer | string): string[] {
  if (status < 200 || status >= 300) return [];
  const rest = REPO_PATH.exec(path)?.[3] ?? "";
  const single = /^\/(?:actions\/jobs|check-runs)\/\d+\/?$/.test(rest);
  const listed =
    /^\/actions\/runs\/\d+(\/attempts\/\d+)?\/jobs\/?$/.test(rest) ||
    /^\/commits\/[^/]+\/check-runs\/?$/.test(rest);
  if (!single && !listed) return [];
  const value = parse(body) as { jobs?: unknown; check_runs?: unknown } | undefined;
  const items: unknown[] = single
    ? [value]
    : Array.isArray(value?.jobs)
      ? value.jobs
      : Array.isArray(value?.check_runs)
        ? value.check_runs
        : [];
  const ids: string[] = [];
  for (const item of items) {
    const id = (item as { id?: unknown } | undefined)?.id;
    if (completed(item) && (typeof id === "number" || typeof id === "string")) ids.push(String(id));
  }
  return ids;
}

/** The cache's marker of a completed job: `job:o/r#<id>`. */
export function completedJobKey(owner: string, name: string, id: string): string {
  return `job:${`${owner}/${name}`.toLowerCase()}#${id}`;
}
