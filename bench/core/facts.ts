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
 * - `<repo>#<n>:head`    the head commit's SHA
 * - `<repo>#<n>:reviews` the reviews, oldest first, "author:STATE,..."; "none" if empty
 * - `<repo>#<n>:reviewDecision`  APPROVED | CHANGES_REQUESTED | REVIEW_REQUIRED | none
 * - `<repo>#<n>:comments`        the PR's conversation comments (count)
 * - `<repo>#<n>:reviewThreads`   the PR's review comments (count; REST pulls/N/comments)
 * - `<repo>#<n>:mergeable`       MERGEABLE | CONFLICTING | UNKNOWN
 * - `<repo>#<n>:mergeState`      mergeStateStatus (CLEAN, BLOCKED, ...)
 * - `<repo>#<n>:diff`            the diff's head (7 hex) and file count, "abc1234:3"
 * - `<repo>:prList`              the open PRs' numbers, newest first, as `gh pr list` (30) shows
 * - `<repo>/issues/<n>:issue`    an issue's state, title, body and labels (a short digest)
 * - `<repo>/issues/<n>:issueComments`  its comments (count)
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
export const prFactKey = (repo: string, pr: number, kind: PrFactKind): string => `${repo}#${pr}:${kind}`;
export const prListKey = (repo: string): string => `${repo}:prList`;
export const issueFactKey = (repo: string, issue: number, kind: "issue" | "issueComments"): string =>
  `${repo}/issues/${issue}:${kind}`;

export type PrFactKind =
  | "state"
  | "checks"
  | "head"
  | "reviews"
  | "reviewDecision"
  | "comments"
  | "reviewThreads"
  | "mergeable"
  | "mergeState"
  | "diff";

/** Every kind of fact the bench judges, in the scorecard's order. */
export const FACT_KINDS = [
  "state",
  "head",
  "checks",
  "reviews",
  "reviewDecision",
  "comments",
  "reviewThreads",
  "mergeable",
  "mergeState",
  "prList",
  "issue",
  "issueComments",
  "run",
  "jobs",
  "diff",
] as const;
export type FactKind = (typeof FACT_KINDS)[number];

/** The kind of a fact, from its key (see the key forms above). */
export function factKind(key: string): FactKind | undefined {
  if (/\/runs\/\d+\/jobs$/.test(key)) return "jobs";
  if (/\/runs\/\d+$/.test(key)) return "run";
  const kind = /:(\w+)$/.exec(key)?.[1];
  return (FACT_KINDS as readonly string[]).includes(kind ?? "") ? (kind as FactKind) : undefined;
}

/** A short, stable digest of free text (FNV-1a, 32 bits, hex): bodies compare without being stored. */
export function digest(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

export function reviewsValue(reviews: readonly { author: string; state: string }[]): string {
  return reviews.length === 0 ? "none" : reviews.map((r) => `${r.author}:${r.state}`).join(",");
}

export function issueValue(issue: {
  state: string;
  title: string;
  body: string;
  labels: readonly string[];
}): string {
  return `${issue.state.toUpperCase()}:${digest(`${issue.title}\n${issue.body}`)}:${[...issue.labels].sort().join(",")}`;
}

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
  facts.push(...pullRequestDetailFacts(repo, pr, o));
  return facts;
}

/** A connection's nodes when it is complete (no next page), else undefined. */
function completeNodes(connection: Json): Json[] | undefined {
  const c = obj(connection);
  if (!c || !Array.isArray(c.nodes)) return undefined;
  if (obj(c.pageInfo)?.hasNextPage === true) return undefined;
  if (typeof c.totalCount === "number" && c.totalCount > c.nodes.length) return undefined;
  return c.nodes;
}

/** Head, reviews, review decision, comments, mergeability: whatever of them the answer selected. */
function pullRequestDetailFacts(repo: string, pr: number, o: Record<string, Json>): Fact[] {
  const facts: Fact[] = [];
  const head =
    str(o.headRefOid) ??
    (o.statusCheckRollup === undefined
      ? str(obj(obj(arr(obj(o.commits)?.nodes)[0])?.commit)?.oid)
      : undefined);
  if (head !== undefined) facts.push({ key: prFactKey(repo, pr, "head"), value: head });
  const reviews = completeNodes(o.reviews);
  if (reviews)
    facts.push({
      key: prFactKey(repo, pr, "reviews"),
      value: reviewsValue(
        reviews.map((r) => ({
          author: str(obj(obj(r)?.author)?.login) ?? "",
          state: str(obj(r)?.state) ?? "",
        })),
      ),
    });
  if ("reviewDecision" in o)
    facts.push({ key: prFactKey(repo, pr, "reviewDecision"), value: str(o.reviewDecision) ?? "none" });
  const comments = obj(o.comments);
  if (comments && typeof comments.totalCount === "number")
    facts.push({ key: prFactKey(repo, pr, "comments"), value: String(comments.totalCount) });
  const mergeable = str(o.mergeable);
  if (mergeable !== undefined) facts.push({ key: prFactKey(repo, pr, "mergeable"), value: mergeable });
  const mergeState = str(o.mergeStateStatus);
  if (mergeState !== undefined) facts.push({ key: prFactKey(repo, pr, "mergeState"), value: mergeState });
  return facts;
}

/** `gh pr diff`'s text: the head it was cut at (from the index lines) and its file count. */
export function diffFacts(repo: string, pr: number, text: string): Fact[] {
  const files = text.match(/^diff --git /gm)?.length ?? 0;
  const head = /^index [0-9a-f]+\.\.([0-9a-f]{7})/m.exec(text)?.[1];
  if (files === 0 || head === undefined) return [];
  return [{ key: prFactKey(repo, pr, "diff"), value: `${head}:${files}` }];
}

export function diffValue(headSha: string, files: number): string {
  return `${headSha.slice(0, 7)}:${files}`;
}

/** What an answer was about, as the replay knows it from the command's bindings. */
export interface AnswerSubject {
  readonly repo: string;
  readonly pr?: number | undefined;
  readonly runId?: number | undefined;
  readonly issue?: number | undefined;
}

/**
 * Facts stated by one answer. `operation` is the GraphQL operation name or the REST route kind
 * ("run", "jobs"); unknown operations state no facts.
 */
export function extractFacts(operation: string, subject: AnswerSubject, body: Json, text?: string): Fact[] {
  if (operation === "GET /repos/{owner}/{repo}/pulls/{pr}" && subject.pr !== undefined && text !== undefined)
    return body === undefined ? diffFacts(subject.repo, subject.pr, text) : [];
  if (operation === "GET /repos/{owner}/{repo}/pulls/{pr}/comments" && subject.pr !== undefined) {
    // gh api without --paginate reads one page of 30: a full page may not be all of them.
    if (!Array.isArray(body) || body.length >= 30) return [];
    return [{ key: prFactKey(subject.repo, subject.pr, "reviewThreads"), value: String(body.length) }];
  }
  const root = obj(body);
  if (!root) return [];
  switch (operation) {
    case "IssueByNumber": {
      const issue = obj(obj(obj(root.data)?.repository)?.issue);
      if (subject.issue === undefined || issue?.__typename !== "Issue") return [];
      const facts: Fact[] = [];
      const labels = completeNodes(issue.labels);
      const state = str(issue.state);
      if (labels && state !== undefined)
        facts.push({
          key: issueFactKey(subject.repo, subject.issue, "issue"),
          value: issueValue({
            state,
            title: str(issue.title) ?? "",
            body: str(issue.body) ?? "",
            labels: labels.map((l) => str(obj(l)?.name) ?? ""),
          }),
        });
      const comments = obj(issue.comments);
      if (comments && typeof comments.totalCount === "number")
        facts.push({
          key: issueFactKey(subject.repo, subject.issue, "issueComments"),
          value: String(comments.totalCount),
        });
      return facts;
    }
    case "CommentsForIssue": {
      const comments = obj(obj(obj(root.data)?.node)?.comments);
      if (subject.issue === undefined || !comments) return [];
      if (typeof comments.totalCount !== "number") return [];
      return [
        {
          key: issueFactKey(subject.repo, subject.issue, "issueComments"),
          value: String(comments.totalCount),
        },
      ];
    }
    case "PullRequestList": {
      const list = obj(obj(obj(root.data)?.repository)?.pullRequests);
      if (!list || !Array.isArray(list.nodes)) return [];
      const numbers = arr(list.nodes).map((n) => obj(n)?.number);
      if (!numbers.every((n) => typeof n === "number")) return [];
      return [{ key: prListKey(subject.repo), value: numbers.join(",") || "none" }];
    }
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
