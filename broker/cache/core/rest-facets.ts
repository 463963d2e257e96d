/**
 * REST paths in the facet model (facets.ts): what a GET of a path read, what a write to it changes.
 * Unknown repository paths read `repo:` and, written, move the repository's lists and every facet
 * of a numbered object they name: conservative, so a path this table does not know can only cost
 * a hit.
 */
import {
  actionsJobsTag,
  actionsJobTag,
  actionsRunsTag,
  actionsRunTag,
  actionsTag,
  branchesTag,
  branchTag,
  createdTags,
  FACETS,
  type Facet,
  facetTag,
  type ListKind,
  listFacetTag,
  listTag,
  objectKey,
  refsTag,
  repoTag,
  shaChecksTag,
  type Tag,
} from "./facets.js";

/** What a write changes, before the aliases learned from earlier answers are applied. */
export interface WriteEffect {
  /** Tags moved as they are. */
  readonly tags: readonly Tag[];
  /** Objects (`num:o/r#n`) whose facets moved (node ids and branch added on resolution). */
  readonly objects: readonly { readonly object: string; readonly facets: readonly Facet[] }[];
  /** Global ids named by a mutation, whose objects' facets moved. */
  readonly nodeIds: readonly { readonly id: string; readonly facets: readonly Facet[] }[];
  /** Head branches whose PRs moved (a branch deleted or pushed). */
  readonly branches: readonly {
    readonly owner: string;
    readonly name: string;
    readonly branch: string;
    readonly facets: readonly Facet[];
  }[];
  /** A created PR or issue in a repository known only by global id (GraphQL createPullRequest). */
  readonly createdIn?: {
    readonly repositoryId: string;
    readonly kind: ListKind;
    readonly branch?: string | undefined;
  };
}

export const NO_WRITE: WriteEffect = { tags: [], objects: [], nodeIds: [], branches: [] };

const REPO_PATH = /^\/repos\/([^/]+)\/([^/?#]+)(\/[^?#]*)?(\?.*)?$/;
const PR_LIST_FACETS: readonly Facet[] = ["core", "state", "updated", "head"];
const PR_FACETS: readonly Facet[] = ["core", "state", "updated", "head", "merge", "comments", "threads"];
const ISSUE_FACETS: readonly Facet[] = ["core", "state", "updated", "comments"];

interface RepoPath {
  readonly owner: string;
  readonly name: string;
  readonly rest: string;
  readonly query: URLSearchParams;
}

function parseRepoPath(path: string): RepoPath | undefined {
  const match = REPO_PATH.exec(path);
  if (!match) return undefined;
  try {
    return {
      owner: decodeURIComponent(match[1] ?? ""),
      name: decodeURIComponent(match[2] ?? ""),
      rest: match[3] ?? "",
      query: new URLSearchParams((match[4] ?? "").slice(1)),
    };
  } catch {
    return undefined;
  }
}

function objectFacets(object: string, facets: readonly Facet[]): Tag[] {
  return facets.map((f) => facetTag(object, f));
}

function listRead(owner: string, name: string, kind: ListKind, facets: readonly Facet[]): Tag[] {
  return [listTag(owner, name, kind), ...facets.map((f) => listFacetTag(owner, name, kind, f))];
}

/**
 * A diff or patch media type (`application/vnd.github[.v3].diff`, `….patch`), and nothing else:
 * an Accept that also names another type may be answered with it.
 */
export function isDiffAccept(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept
    .split(",")
    .map((t) => (t.split(";")[0] ?? "").trim().toLowerCase())
    .filter((t) => t.length > 0);
  return types.length > 0 && types.every((t) => /^application\/vnd\.github(\.v3)?\.(diff|patch)$/.test(t));
}

/**
 * Tags a GET of this path reads, with the request's Accept header (lower-cased request headers'
 * `accept`). Empty for immutable answers and non-repository paths. `pulls/N` asked as a diff or a
 * patch (`gh pr diff`) shows only the PR's changes: its head facet (which a new head, a base
 * change and a merge move), not its title, state, comments or updatedAt.
 */
export function restReadTags(path: string, accept?: string): Tag[] {
  const p = parseRepoPath(path);
  if (!p) return [];
  const { owner, name, rest } = p;
  const repo = repoTag(owner, name);
  const numbered = /^\/(pulls|issues)\/(\d+)(\/[^/]+)?\/?$/.exec(rest);
  if (numbered) {
    const object = objectKey(owner, name, numbered[2] ?? "");
    const sub = numbered[3]?.slice(1);
    const isPull = numbered[1] === "pulls";
    let facets: readonly Facet[];
    if (sub === undefined && isPull && isDiffAccept(accept)) facets = ["head"];
    else if (sub === undefined) facets = isPull ? PR_FACETS : ISSUE_FACETS;
    else if (sub === "comments") facets = isPull ? ["threads"] : ["comments"];
    else if (sub === "reviews") facets = ["reviews"];
    else if (sub === "commits" || sub === "files") facets = ["head"];
    else if (sub === "requested_reviewers" || sub === "labels" || sub === "assignees") facets = ["core"];
    else if (sub === "merge") facets = ["state"];
    else facets = FACETS; // events, timeline, reactions, …
    return [repo, ...objectFacets(object, facets)];
  }
  if (/^\/pulls\/?$/.test(rest)) {
    const head = p.query.get("head");
    if (head) {
      const branch = head.includes(":") ? head.slice(head.indexOf(":") + 1) : head;
      return [
        repo,
        branchTag(owner, name, branch),
        branchesTag(owner, name),
        ...PR_LIST_FACETS.filter((f) => f !== "state").map((f) => listFacetTag(owner, name, "pulls", f)),
      ];
    }
    return [repo, ...listRead(owner, name, "pulls", PR_LIST_FACETS)];
  }
  // REST's issue list holds PRs as well: it moves with PRs' list changes (the same tags: see
  // objectChangeTags and createdTags, which move both kinds).
  if (/^\/issues\/?$/.test(rest)) return [repo, ...listRead(owner, name, "issues", ISSUE_FACETS)];
  if (/^\/pulls\/comments(\/|$)/.test(rest)) return [repo, ...listRead(owner, name, "pulls", ["threads"])];
  if (/^\/issues\/comments(\/|$)/.test(rest)) return [repo, ...listRead(owner, name, "issues", ["comments"])];
  const commitChecks = /^\/commits\/([^/]+)\/(check-runs|check-suites|status|statuses)\/?$/.exec(rest);
  if (commitChecks) {
    const ref = decodeURIComponent(commitChecks[1] ?? "");
    const tags = [repo, shaChecksTag(owner, name, ref)];
    // A branch name (not a SHA) follows pushes as well.
    if (!/^[0-9a-f]{40}$/i.test(ref)) tags.push(refsTag(owner, name));
    return tags;
  }
  // A commit named by its full SHA never changes.
  if (/^\/(git\/)?commits\/[0-9a-f]{40}\/?$/i.test(rest)) return [];
  if (/^\/(git\/)?(commits|refs|branches|compare)(\/|$)/.test(rest)) return [repo, refsTag(owner, name)];
  // Workflow definitions and a job's log (only there once the job finished) are immutable.
  if (/^\/actions\/workflows\/[^/]+\/?$/.test(rest)) return [];
  if (/^\/actions\/(jobs|runs)\/\d+\/logs\/?$/.test(rest)) return [];
  // Runs, their lists and jobs read a finer tag beside the repository-wide one: the lifecycle's
  // Actions guard moves only the runs it saw move (and vouches for the rest).
  const actions = actionsTag(owner, name);
  const run = /^\/actions\/runs\/(\d+)(\/(jobs|attempts(\/\d+(\/jobs)?)?|artifacts|timing))?\/?$/.exec(rest);
  if (run) return [repo, actions, actionsRunTag(owner, name, run[1] ?? "")];
  if (/^\/actions\/(workflows\/[^/]+\/)?runs\/?$/.test(rest))
    return [repo, actions, actionsRunsTag(owner, name, p.query.get("branch"))];
  const job = /^\/(?:actions\/jobs|check-runs)\/(\d+)(\/annotations)?\/?$/.exec(rest);
  if (job) return [repo, actions, actionsJobsTag(owner, name), actionsJobTag(owner, name, job[1] ?? "")];
  if (rest.startsWith("/actions") || rest.startsWith("/check-runs") || rest.startsWith("/check-suites"))
    return [repo, actions];
  return [repo];
}

/**
 * Whether a `PATCH pulls/N` body may change the PR's base (`{"base": …}`): a new base is a new
 * diff, commit list and file list (the head facet). A body not known or not a JSON object: it may.
 */
function patchNamesBase(body: Uint8Array | string | undefined): boolean {
  if (body === undefined) return true;
  try {
    const text = typeof body === "string" ? body : new TextDecoder().decode(body);
    if (text.trim() === "") return false;
    const parsed: unknown = JSON.parse(text);
    return !parsed || typeof parsed !== "object" || Array.isArray(parsed) || "base" in parsed;
  } catch {
    return true;
  }
}

/**
 * What a REST write (POST, PATCH, PUT, DELETE) to this path changes. `body`, the bytes sent, is
 * read only where the path alone does not tell (`PATCH pulls/N`: a base change moves the head);
 * a body not handed in counts as one that may name a base.
 */
export function restWriteEffect(method: string, path: string, body?: Uint8Array | string): WriteEffect {
  const p = parseRepoPath(path);
  if (!p) return NO_WRITE;
  const { owner, name, rest } = p;
  const numbered = /^\/(pulls|issues)\/(\d+)(\/[^/]+)?(\/.*)?$/.exec(rest);
  if (numbered) {
    const object = objectKey(owner, name, numbered[2] ?? "");
    const sub = numbered[3]?.slice(1);
    const isPull = numbered[1] === "pulls";
    let facets: readonly Facet[];
    if (sub === undefined)
      facets =
        isPull && method === "PATCH" && patchNamesBase(body) ? ["core", "state", "head"] : ["core", "state"];
    else if (sub === "comments") facets = isPull ? ["threads"] : ["comments"];
    else if (sub === "reviews") facets = ["reviews", "threads", "comments"];
    else if (sub === "requested_reviewers") facets = ["core", "reviews"];
    else if (sub === "labels" || sub === "assignees") facets = ["core"];
    else if (sub === "merge") facets = ["state", "head"];
    else if (sub === "update-branch") facets = ["head"];
    else facets = FACETS;
    return { ...NO_WRITE, objects: [{ object, facets }] };
  }
  if (/^\/(pulls|issues)\/?$/.test(rest) && method === "POST") {
    return { ...NO_WRITE, tags: createdTags(owner, name, rest.includes("pulls") ? "pulls" : "issues") };
  }
  if (/^\/(issues|pulls)\/comments\/\d+/.test(rest)) {
    const kind: ListKind = rest.startsWith("/pulls") ? "pulls" : "issues";
    const facet: Facet = kind === "pulls" ? "threads" : "comments";
    // The comment's PR is not in the path: every PR's and issue's comments of the repo.
    return {
      ...NO_WRITE,
      tags: [listFacetTag(owner, name, "pulls", facet), listFacetTag(owner, name, "issues", facet)],
      objects: [],
      branches: [],
      nodeIds: [],
    };
  }
  const ref = /^\/git\/refs\/heads\/(.+)$/.exec(rest);
  if (ref) {
    const branch = decodeURIComponent(ref[1] ?? "");
    // A deleted head branch closes its open PRs; a moved one changes their head.
    return {
      ...NO_WRITE,
      tags: [refsTag(owner, name), branchTag(owner, name, branch)],
      branches: [{ owner, name, branch, facets: method === "DELETE" ? ["state", "head"] : ["head"] }],
    };
  }
  if (/^\/(git|branches)(\/|$)/.test(rest)) return { ...NO_WRITE, tags: [refsTag(owner, name)] };
  if (/^\/statuses\/([^/]+)$/.test(rest) || rest.startsWith("/check-runs") || rest.startsWith("/actions")) {
    const sha = /^\/statuses\/([^/]+)$/.exec(rest)?.[1];
    const tags = [
      actionsTag(owner, name),
      listFacetTag(owner, name, "pulls", "checks"),
      listFacetTag(owner, name, "pulls", "merge"),
      ...(sha ? [shaChecksTag(owner, name, sha)] : []),
    ];
    return { ...NO_WRITE, tags };
  }
  // Anything else about the repository: its static information and its lists' membership.
  return {
    ...NO_WRITE,
    tags: [repoTag(owner, name), listTag(owner, name, "pulls"), listTag(owner, name, "issues")],
  };
}
