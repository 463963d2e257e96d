/**
 * Facts: the parts of an answer whose freshness matters to an agent or the orchestrator, in a
 * canonical string form that the truth (the simulator's world, see truth-tracker.ts) is rendered
 * into as well, so "what the answer said" and "what was true" compare as plain strings.
 *
 * - `<repo>#<n>:checks`  the head commit's check runs (newest per name) and statuses, sorted:
 *                         "build:completed:success|lint:in_progress:|ci/x=success"; "none" if empty
 * - `<repo>#<n>:state`   OPEN | CLOSED | MERGED
 * - `<repo>/runs/<id>`   "status:conclusion" of a workflow run
 * - `<repo>/runs/<id>/jobs`  the run's jobs like checks
 *
 * Answers that are incomplete (a next page exists) yield no fact: they cannot be compared. Pure.
 */

export interface Fact {
  readonly key: string;
  readonly value: string;
}

export interface CheckItem {
  readonly name: string;
  readonly status: string;
  readonly conclusion: string | null;
}

export interface StatusItem {
  readonly context: string;
  readonly state: string;
}

export const prChecksKey = (repo: string, pr: number): string => `${repo}#${pr}:checks`;
export const prStateKey = (repo: string, pr: number): string => `${repo}#${pr}:state`;
export const runKey = (repo: string, runId: number): string => `${repo}/runs/${runId}`;
export const jobsKey = (repo: string, runId: number): string => `${repo}/runs/${runId}/jobs`;

/** Canonical form of a set of check runs and statuses (order-free, case-free). */
export function checksValue(checks: readonly CheckItem[], statuses: readonly StatusItem[] = []): string {
  const items = [
    ...checks.map((c) => `${c.name}:${c.status.toLowerCase()}:${(c.conclusion ?? "").toLowerCase()}`),
    ...statuses.map((s) => `${s.context}=${s.state.toLowerCase()}`),
  ].sort();
  return items.length === 0 ? "none" : items.join("|");
}

export function runValue(status: string, conclusion: string | null): string {
  return `${status.toLowerCase()}:${(conclusion ?? "").toLowerCase()}`;
}

type Json = unknown;
const obj = (v: Json): Record<string, Json> | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, Json>) : undefined;
const arr = (v: Json): Json[] => (Array.isArray(v) ? v : []);
const str = (v: Json): string | undefined => (typeof v === "string" ? v : undefined);

/** Checks from a statusCheckRollup object `{ contexts: { nodes, pageInfo? } }`; undefined if partial. */
function checksFromRollup(rollup: Json): string | undefined {
  if (rollup === null) return "none";
  const contexts = obj(obj(rollup)?.contexts);
  if (!contexts) return undefined;
  if (obj(contexts.pageInfo)?.hasNextPage === true) return undefined;
  const checks: CheckItem[] = [];
  const statuses: StatusItem[] = [];
  for (const node of arr(contexts.nodes)) {
    const n = obj(node);
    if (!n) continue;
    const name = str(n.name);
    const status = str(n.status);
    if (name !== undefined && status !== undefined) {
      checks.push({ name, status, conclusion: str(n.conclusion) ?? null });
      continue;
    }
    const context = str(n.context);
    const state = str(n.state);
    if (context !== undefined && state !== undefined) statuses.push({ context, state });
  }
  return checksValue(checks, statuses);
}

/**
 * Facts about one pull request from a GraphQL PullRequest object. The checks live under
 * `commits(last: 1)` (AO's enrichment) or its alias `statusCheckRollup` (gh).
 */
export function pullRequestFacts(repo: string, pr: number, node: Json): Fact[] {
  const o = obj(node);
  if (!o) return [];
  const facts: Fact[] = [];
  const state = str(o.state);
  if (state !== undefined && /^(OPEN|CLOSED|MERGED)$/.test(state))
    facts.push({ key: prStateKey(repo, pr), value: state });
  const commits = obj(o.statusCheckRollup) ?? obj(o.commits);
  if (commits && Array.isArray(commits.nodes)) {
    const last = obj(obj(arr(commits.nodes)[0])?.commit);
    if (last && "statusCheckRollup" in last) {
      const value = checksFromRollup(last.statusCheckRollup);
      if (value !== undefined) facts.push({ key: prChecksKey(repo, pr), value });
    }
  }
  return facts;
}

/** What an answer was about, as the replay knows it from the command's bindings. */
export interface AnswerSubject {
  readonly repo: string;
  readonly pr?: number | undefined;
  readonly runId?: number | undefined;
}

/**
 * Facts stated by one answer. `operation` is the GraphQL operation name or the REST route kind
 * ("run", "jobs"); unknown operations state no facts.
 */
export function extractFacts(operation: string, subject: AnswerSubject, body: Json): Fact[] {
  const root = obj(body);
  if (!root) return [];
  switch (operation) {
    case "PullRequestByNumber": {
      if (subject.pr === undefined) return [];
      return pullRequestFacts(subject.repo, subject.pr, obj(obj(root.data)?.repository)?.pullRequest);
    }
    case "PullRequestStatusChecks": {
      if (subject.pr === undefined) return [];
      return pullRequestFacts(subject.repo, subject.pr, obj(root.data)?.node);
    }
    case "run": {
      const status = str(root.status);
      if (subject.runId === undefined || status === undefined) return [];
      return [
        { key: runKey(subject.repo, subject.runId), value: runValue(status, str(root.conclusion) ?? null) },
      ];
    }
    case "jobs": {
      if (subject.runId === undefined || !Array.isArray(root.jobs)) return [];
      if (typeof root.total_count === "number" && root.total_count > root.jobs.length) return [];
      const jobs: CheckItem[] = [];
      for (const job of arr(root.jobs)) {
        const j = obj(job);
        const name = str(j?.name);
        const status = str(j?.status);
        if (name !== undefined && status !== undefined)
          jobs.push({ name, status, conclusion: str(j?.conclusion) ?? null });
      }
      return [{ key: jobsKey(subject.repo, subject.runId), value: checksValue(jobs) }];
    }
    default:
      return [];
  }
}
