/**
 * Which GitHub resources an answer depends on, and which a write changes, as string tags:
 *   repo:<o>/<r>        repository-level data
 *   num:<o>/<r>#<n>     one pull request or issue (they share GitHub's number space)
 *   list:<o>/<r>        lists of PRs/issues in a repo (titles, states, counts change with any write)
 *   actions:<o>/<r>     workflow runs and jobs
 *   node:<id>           a GraphQL global id asked for directly (node(id:), nodes(ids:))
 * A cached answer stores the generation of each tag it depends on; a write bumps the generations
 * of the tags it touches, so every broker sees the entry as changed without scanning keys.
 * Repository names are case-insensitive on GitHub, so tags are lower-cased.
 */
export type Tag = string;

export function repoTag(owner: string, name: string): Tag {
  return `repo:${owner}/${name}`.toLowerCase();
}
export function numberTag(owner: string, name: string, number: number | string): Tag {
  return `num:${owner}/${name}#${number}`.toLowerCase();
}
export function listTag(owner: string, name: string): Tag {
  return `list:${owner}/${name}`.toLowerCase();
}
export function actionsTag(owner: string, name: string): Tag {
  return `actions:${owner}/${name}`.toLowerCase();
}
export function nodeTag(id: string): Tag {
  return `node:${id}`;
}

/**
 * The tags a lifecycle vouch must cover for an answer to outlive its plain freshness: its
 * pull-request and node tags, when it reads at least one and nothing the lifecycle does not watch
 * (lists and Actions change without any one PR's guards moving). Repository tags move only with
 * writes through the broker, which bump them anyway. Undefined: the answer cannot be vouched for.
 */
export function vouchableTags(reads: readonly Tag[]): readonly Tag[] | undefined {
  const covered: Tag[] = [];
  for (const tag of reads) {
    if (tag.startsWith("num:") || tag.startsWith("node:")) covered.push(tag);
    else if (!tag.startsWith("repo:")) return undefined;
  }
  return covered.length > 0 ? covered : undefined;
}

export interface RestTags {
  /** Tags a read of this path depends on. */
  readonly reads: readonly Tag[];
  /** Tags a write to this path invalidates. */
  readonly writes: readonly Tag[];
}

const REPO_PATH = /^\/repos\/([^/]+)\/([^/?#]+)(\/[^?#]*)?/;

export function restTags(path: string): RestTags {
  const match = REPO_PATH.exec(path);
  if (!match) return { reads: [], writes: [] };
  const owner = decodeURIComponent(match[1] ?? "");
  const name = decodeURIComponent(match[2] ?? "");
  const rest = match[3] ?? "";
  const repo = repoTag(owner, name);
  const list = listTag(owner, name);
  const numbered = /^\/(pulls|issues)\/(\d+)(\/|$)/.exec(rest);
  if (numbered) {
    const num = numberTag(owner, name, numbered[2] ?? "");
    return { reads: [repo, num], writes: [num, list] };
  }
  if (/^\/(pulls|issues)\/?$/.test(rest)) return { reads: [repo, list], writes: [list] };
  if (/^\/(issues\/comments|pulls\/comments)\//.test(rest)) return { reads: [repo, list], writes: [list] };
  if (rest.startsWith("/actions") || rest.startsWith("/check-runs") || rest.startsWith("/check-suites")) {
    const actions = actionsTag(owner, name);
    return { reads: [repo, actions], writes: [actions] };
  }
  if (rest.startsWith("/git/refs")) return { reads: [repo, list], writes: [repo, list] };
  return { reads: [repo], writes: [repo, list] };
}
