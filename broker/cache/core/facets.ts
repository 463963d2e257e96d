/**
 * The facet model: which parts of which GitHub objects a cached answer read, and which parts a
 * write or a signal changed. An answer stores the generation of every (object, facet) tag it read;
 * a change bumps exactly the tags it moves, so an answer dies only when something it showed could
 * have changed (docs/caching.md, decision 0007). Pure: no I/O; the aliases it needs (node ids and
 * head branches learned from earlier answers) are handed in by the caller.
 *
 * Tags (lower-cased, GitHub names are case-insensitive; node ids and branch names keep their case):
 *   num:<o>/<r>#<n>:<facet>      one PR or issue (they share GitHub's number space)
 *   node:<id>:<facet>            the same object asked for by global id (node(id:), nodes(ids:))
 *   list:<o>/<r>:<kind>          which PRs/issues a repo's lists hold (kind: pulls | issues)
 *   list:<o>/<r>:<kind>:<facet>  a facet of any member of those lists
 *   branch:<o>/<r>:<branch>      the PR lookup of one head branch (which PRs, their state)
 *   branches:<o>/<r>             every branch lookup of the repo (when a write names no branch)
 *   sha:<o>/<r>@<sha>:checks     check runs and statuses of one commit
 *   actions:<o>/<r>              every workflow run and job of the repo (read by every Actions answer)
 *   actions:<o>/<r>:run:<id>     one workflow run and its jobs
 *   actions:<o>/<r>:runs         the repo's run lists; …:runs@<branch> the lists filtered by branch
 *   actions:<o>/<r>:jobs         job and check-run details read by id (annotations)
 *   refs:<o>/<r>                 git refs and commits named by branch
 *   repo:<o>/<r>                 static repository information
 * Immutable facts (a PR's number, id, headRefName, author, createdAt; a commit named by SHA; a
 * workflow definition; a finished job's log) carry no tag: no motion invalidates them.
 */
export type Tag = string;

export const FACETS = [
  "core", // title, body, labels, assignees, milestone, draft, base, review requests
  "state", // open/closed/merged
  "updated", // updatedAt: moves with every change but CI
  "head", // head commit, commits, files, diff
  "checks", // check runs and statuses of the head
  "reviews", // reviews and the review decision
  "comments", // conversation (issue) comments
  "threads", // review threads and review comments
  "merge", // mergeable, mergeStateStatus: follow head, base, state and checks
] as const;
export type Facet = (typeof FACETS)[number];
export type ListKind = "pulls" | "issues";

function repoKey(owner: string, name: string): string {
  return `${owner}/${name}`.toLowerCase();
}

export function objectKey(owner: string, name: string, number: number | string): string {
  return `num:${repoKey(owner, name)}#${number}`;
}
export function facetTag(object: string, facet: Facet): Tag {
  return `${object}:${facet}`;
}
export function nodeFacetTag(id: string, facet: Facet): Tag {
  return `node:${id}:${facet}`;
}
export function listTag(owner: string, name: string, kind: ListKind): Tag {
  return `list:${repoKey(owner, name)}:${kind}`;
}
export function listFacetTag(owner: string, name: string, kind: ListKind, facet: Facet): Tag {
  return `list:${repoKey(owner, name)}:${kind}:${facet}`;
}
export function branchTag(owner: string, name: string, branch: string): Tag {
  return `branch:${repoKey(owner, name)}:${branch}`;
}
export function branchesTag(owner: string, name: string): Tag {
  return `branches:${repoKey(owner, name)}`;
}
export function shaChecksTag(owner: string, name: string, sha: string): Tag {
  return `sha:${repoKey(owner, name)}@${sha.toLowerCase()}:checks`;
}
export function actionsTag(owner: string, name: string): Tag {
  return `actions:${repoKey(owner, name)}`;
}
/** One workflow run (its own answer, its jobs, attempts, artifacts). */
export function actionsRunTag(owner: string, name: string, runId: number | string): Tag {
  return `actions:${repoKey(owner, name)}:run:${runId}`;
}
/** The repository's workflow-run lists; with a branch, the lists filtered by that branch. */
export function actionsRunsTag(owner: string, name: string, branch?: string | null): Tag {
  return branch ? `actions:${repoKey(owner, name)}:runs@${branch}` : `actions:${repoKey(owner, name)}:runs`;
}
/** Jobs and check runs read by their own id (`actions/jobs/{id}`, `check-runs/{id}/annotations`). */
export function actionsJobsTag(owner: string, name: string): Tag {
  return `actions:${repoKey(owner, name)}:jobs`;
}
/** One job (check run) read by its id: what a webhook about that job alone moves (decision 0021). */
export function actionsJobTag(owner: string, name: string, jobId: number | string): Tag {
  return `actions:${repoKey(owner, name)}:job:${jobId}`;
}
export function refsTag(owner: string, name: string): Tag {
  return `refs:${repoKey(owner, name)}`;
}
export function repoTag(owner: string, name: string): Tag {
  return `repo:${repoKey(owner, name)}`;
}

/** `num:o/r#n` → {owner, name, number}; undefined for anything else. */
export function parseObjectKey(object: string): { owner: string; name: string; number: number } | undefined {
  const match = /^num:([^/]+)\/([^#]+)#(\d+)$/.exec(object);
  if (!match) return undefined;
  return { owner: match[1] as string, name: match[2] as string, number: Number(match[3]) };
}

/** `num:o/r#n:facet` or `node:id:facet` → the object part and the facet. */
export function splitFacetTag(tag: Tag): { object: string; facet: Facet } | undefined {
  if (!tag.startsWith("num:") && !tag.startsWith("node:")) return undefined;
  const at = tag.lastIndexOf(":");
  const facet = tag.slice(at + 1) as Facet;
  if (!FACETS.includes(facet)) return undefined;
  return { object: tag.slice(0, at), facet };
}

/**
 * Facets that move with a facet: mergeability is computed from head, base (core), state and checks;
 * updatedAt moves with every change GitHub records on the PR itself (CI runs do not touch it).
 */
export function closeFacets(facets: Iterable<Facet>): Facet[] {
  const out = new Set<Facet>(facets);
  for (const f of [...out]) {
    if (f === "head" || f === "core" || f === "state" || f === "checks") out.add("merge");
    if (f !== "checks" && f !== "merge") out.add("updated");
  }
  return [...out];
}

export interface ObjectChange {
  /** `num:o/r#n`. */
  readonly object: string;
  readonly facets: readonly Facet[];
  /** Node ids learned for the object (their node: tags move with it). */
  readonly ids?: readonly string[];
  /** The PR's head branch when known: a state change moves its branch lookup. */
  readonly branch?: string | undefined;
}

/**
 * The tags a change to some facets of one PR or issue moves: its own facet tags, the same facets
 * of its node ids, the same facets of the repo's lists, the list membership when its state moved
 * (lists filter by state), and its branch's PR lookup (or every branch lookup, branch unknown).
 */
export function objectChangeTags(change: ObjectChange): Tag[] {
  const ref = parseObjectKey(change.object);
  if (!ref) return [];
  const facets = closeFacets(change.facets);
  const tags = new Set<Tag>();
  for (const facet of facets) {
    tags.add(facetTag(change.object, facet));
    for (const id of change.ids ?? []) tags.add(nodeFacetTag(id, facet));
    // A number may be a PR or an issue; REST's issue lists hold PRs too.
    tags.add(listFacetTag(ref.owner, ref.name, "pulls", facet));
    tags.add(listFacetTag(ref.owner, ref.name, "issues", facet));
  }
  if (facets.includes("state")) {
    tags.add(listTag(ref.owner, ref.name, "pulls"));
    tags.add(listTag(ref.owner, ref.name, "issues"));
    tags.add(
      change.branch ? branchTag(ref.owner, ref.name, change.branch) : branchesTag(ref.owner, ref.name),
    );
  }
  return [...tags];
}

/** A new PR (or issue) appeared: the lists gain a member, and its branch's lookup one PR. */
export function createdTags(owner: string, name: string, kind: ListKind, branch?: string): Tag[] {
  const tags = [listTag(owner, name, kind)];
  if (kind === "pulls") {
    // REST's issue lists include PRs; GraphQL's `issues` does not, but one tag covers both reads.
    tags.push(listTag(owner, name, "issues"));
    tags.push(branch ? branchTag(owner, name, branch) : branchesTag(owner, name));
  }
  return tags;
}

/** Check runs or statuses of a head moved: only answers that read checks (and mergeability). */
export function checksMovedTags(
  owner: string,
  name: string,
  sha: string | undefined,
  object: ObjectChange | undefined,
): Tag[] {
  const tags = new Set<Tag>([actionsTag(owner, name)]);
  if (sha) tags.add(shaChecksTag(owner, name, sha));
  if (object) for (const t of objectChangeTags({ ...object, facets: ["checks"] })) tags.add(t);
  else {
    for (const facet of ["checks", "merge"] as const) {
      tags.add(listFacetTag(owner, name, "pulls", facet));
      tags.add(listFacetTag(owner, name, "issues", facet));
    }
  }
  return [...tags];
}

export interface MovedRun {
  readonly id: number;
  readonly headSha: string;
  readonly branch: string | null;
}

/**
 * Workflow runs the Actions guard saw move (new, or another status, conclusion, attempt or
 * updated_at): those runs' answers, the run lists (unfiltered, and filtered by each run's branch),
 * the job details read by id, and each head's commit checks. Not the repository-wide
 * `actions:` tag: every other run's answers stay. The PRs whose head those runs are on are moved
 * by the caller (their checks facets: checksMovedTags / objectChangeTags).
 */
export function runsMovedTags(owner: string, name: string, runs: readonly MovedRun[]): Tag[] {
  const tags = new Set<Tag>();
  if (runs.length === 0) return [];
  tags.add(actionsRunsTag(owner, name));
  tags.add(actionsJobsTag(owner, name));
  for (const run of runs) {
    tags.add(actionsRunTag(owner, name, run.id));
    if (run.branch) tags.add(actionsRunsTag(owner, name, run.branch));
    tags.add(shaChecksTag(owner, name, run.headSha));
  }
  return [...tags];
}

/** A global id named by a write whose object is not known: every facet of that node. */
export function unknownNodeTags(id: string): Tag[] {
  return FACETS.map((f) => nodeFacetTag(id, f));
}

/**
 * The objects whose vouch an answer needs to outlive its plain freshness: the PRs (num:) and
 * nodes it read facets of, when everything else it read is static repository information. Lists,
 * branch lookups, commits and Actions change without any one PR's guards moving. Undefined: the
 * answer cannot be vouched for by PR guards.
 */
export function vouchObjects(reads: readonly Tag[]): readonly string[] | undefined {
  const objects = new Set<string>();
  for (const tag of reads) {
    const split = splitFacetTag(tag);
    if (split) objects.add(split.object);
    else if (!tag.startsWith("repo:")) return undefined;
  }
  return objects.size > 0 ? [...objects] : undefined;
}

/** Vouch key of a repository's Actions answers: `runs:o/r` (the lifecycle's actions/runs guard). */
export function actionsVouchKey(owner: string, name: string): string {
  return `runs:${repoKey(owner, name)}`;
}

/**
 * Vouch key of one workflow run's own answers (its record, its jobs): `runs:o/r#<id>`, sent only
 * for the runs on the guard's page. A full page holds the newest runs, so an older run's move is
 * not seen there, and the repository's vouch alone must not cover that run.
 */
export function actionsRunVouchKey(owner: string, name: string, runId: number | string): string {
  return `runs:${repoKey(owner, name)}#${runId}`;
}

/** Vouch key of one commit's checks: `sha:o/r@<sha>` (the Actions guard with the status guard). */
export function shaVouchKey(owner: string, name: string, sha: string): string {
  return `sha:${repoKey(owner, name)}@${sha.toLowerCase()}`;
}

/**
 * Vouch key of the issues-list guard for one learned node id (`nodei:<id>`): written for every id
 * the cache learned in that repository when the guard vouches (ResponseCache.vouch), because the
 * guard's invalidations move those ids' node facets too (resolve-write.ts).
 */
export function nodeListVouchKey(id: string): string {
  return `nodei:${id}`;
}

/**
 * The vouches a newly learned node id inherits, as `[from, to]` vouch keys. A vouch names the
 * object (`num:o/r#n`) and, when it is written, every node id then known for it (ResponseCache.vouch);
 * the lifecycle sends it again only when its time advances, which a PR whose guards are quiet (an
 * Actions guard's cover that does not move) may not do for minutes. An id learned after the last
 * vouch (gh's PR lookup answered after the guard vouched) names the same PR, whose changes move its
 * node facets with its num: ones (resolve-write.ts), so the object's vouch holds for it as written:
 * copied at learning, the issues-list guard's `issues:o/r` to `nodei:<id>` likewise. Repository ids
 * (`repo:o/r`) inherit nothing: no vouch covers a repository's node facets.
 */
export function inheritedVouches(ids: ReadonlyMap<string, string>): [from: string, to: string][] {
  const pairs: [string, string][] = [];
  for (const [id, object] of ids) {
    const ref = parseObjectKey(object);
    if (!ref) continue;
    pairs.push([object, `node:${id}`]);
    pairs.push([listVouchKey(ref.owner, ref.name, "issues"), nodeListVouchKey(id)]);
  }
  return pairs;
}

/** Vouch key of a repository's lists: `pulls:o/r` (the PR-list guard), `issues:o/r` (the issues-list guard). */
export function listVouchKey(owner: string, name: string, kind: ListKind): string {
  return `${kind}:${repoKey(owner, name)}`;
}

const LIST_TAG = /^list:([^/]+)\/([^:]+):(pulls|issues)(?::([a-z]+))?$/;
const BRANCH_TAG = /^branch(?:es)?:([^/]+)\/([^:]+)/;
const ACTIONS_TAG = /^actions:([^/]+)\/([^:]+)(:.+)?$/;
const SHA_TAG = /^sha:([^/]+)\/([^@]+)@([0-9a-f]+):checks$/;

/**
 * Which free signals can vouch for an answer, tag by tag: for each tag it read, the vouch keys any
 * one of which covers it (an answer is good as of the OLDEST of its tags' NEWEST covering vouch).
 * - a PR or issue facet but checks and mergeability: that PR's guards (`num:`), or the repository's
 *   issues-list guard (`issues:`), which lists PRs and issues by updated_at: any change to one of
 *   them but CI moves it to the top;
 * - checks and mergeability of a PR: that PR's check guards only;
 * - a node facet: the PR guards' vouch for that node (the lifecycle vouches a PR's learned ids),
 *   or, but for checks and mergeability, the issues-list guard's vouch for that learned id
 *   (`nodei:`): an issue read by node id (`issue view --comments`) has no PR guard;
 * - PR lists and branch lookups: the PR-list guard (`pulls:`) or the issues-list guard;
 * - issue lists: the issues-list guard;
 * - static repository information needs no vouch (only writes through the broker move it);
 * - the run lists, job details by id: the repository's Actions guard (`runs:`); a workflow run's
 *   own answers (record, jobs): that run's vouch (`runs:o/r#<id>`), sent for the runs on the
 *   guard's page;
 *   the repository-wide `actions:` tag every Actions answer reads is then covered by the same
 *   guard, but alone (artifacts, caches, anything the guard's list does not show) it is not;
 * - a commit's checks (`sha:`): that head's vouch (`sha:o/r@<sha>`), which the lifecycle sends
 *   for the heads its Actions guard and status guards cover.
 * - with `pullRequests` (the reader knows its numbered objects are PRs: REST `pulls/N…`), a PR
 *   facet but checks and mergeability is also covered by the PR-list guard (`pulls:`): it lists
 *   PRs by updated_at, and every PR it sees move is invalidated (object and list facets together)
 *   before it vouches. An issue's number never gets that alternative: the PR list does not hold it.
 * Undefined when some tag no signal covers (refs, lists' CI facets, Actions data beyond runs).
 */
export function vouchGroups(
  reads: readonly Tag[],
  options: { readonly pullRequests?: boolean } = {},
): string[][] | undefined {
  const groups = new Map<string, string[]>();
  const add = (alternatives: string[]) => groups.set(alternatives.join("|"), alternatives);
  for (const tag of reads) {
    if (tag.startsWith("repo:")) continue;
    const split = splitFacetTag(tag);
    if (split) {
      const alternatives = [split.object];
      const ref = parseObjectKey(split.object);
      const ci = split.facet === "checks" || split.facet === "merge";
      if (ref && !ci) alternatives.push(listVouchKey(ref.owner, ref.name, "issues"));
      if (ref && !ci && options.pullRequests) alternatives.push(listVouchKey(ref.owner, ref.name, "pulls"));
      if (!ref && !ci) alternatives.push(nodeListVouchKey(split.object.slice("node:".length)));
      add(alternatives);
      continue;
    }
    const list = LIST_TAG.exec(tag);
    if (list) {
      const facet = list[4];
      if (facet === "checks" || facet === "merge") return undefined;
      const [owner, name, kind] = [list[1] as string, list[2] as string, list[3] as ListKind];
      add(
        kind === "pulls"
          ? [listVouchKey(owner, name, "pulls"), listVouchKey(owner, name, "issues")]
          : [listVouchKey(owner, name, "issues")],
      );
      continue;
    }
    const branch = BRANCH_TAG.exec(tag);
    if (branch) {
      const [owner, name] = [branch[1] as string, branch[2] as string];
      add([listVouchKey(owner, name, "pulls"), listVouchKey(owner, name, "issues")]);
      continue;
    }
    const actions = ACTIONS_TAG.exec(tag);
    if (actions) {
      const [owner, name, fine] = [actions[1] as string, actions[2] as string, actions[3]];
      // The repository-wide tag is covered only beside a run, list or job tag the guard watches.
      if (fine === undefined && !reads.some((t) => t.startsWith(`${tag}:`))) return undefined;
      const run = fine === undefined ? null : /^:run:(\d+)$/.exec(fine);
      add([run ? actionsRunVouchKey(owner, name, run[1] as string) : actionsVouchKey(owner, name)]);
      continue;
    }
    const sha = SHA_TAG.exec(tag);
    if (sha) {
      add([shaVouchKey(sha[1] as string, sha[2] as string, sha[3] as string)]);
      continue;
    }
    return undefined;
  }
  return groups.size > 0 ? [...groups.values()] : undefined;
}
