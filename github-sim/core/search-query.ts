/**
 * The subset of GitHub's issue search syntax gh sends (`gh pr list --search/--label`, `gh pr
 * status`): repo:, is:/type: (pr, issue, open, closed, merged, draft), state:, author:,
 * assignee:, label:, review-requested:, head:, base:, in any order; `@me` is the viewer; other
 * words must all appear in the title or body. Results are newest first, as GitHub's default.
 */
import type { SimIssue, SimPullRequest, SimRepo } from "./model.js";
import type { World } from "./world.js";

export type SearchItem = { readonly repo: SimRepo; readonly item: SimIssue | SimPullRequest };

interface Qualifier {
  readonly key: string;
  readonly value: string;
  readonly negated: boolean;
}

/** Splits on spaces outside double quotes. */
function tokens(query: string): string[] {
  return [...query.matchAll(/(?:[^\s"]+|"[^"]*")+/g)].map((m) => m[0].replace(/"/g, ""));
}

function matches(world: World, q: Qualifier, repo: SimRepo, item: SimIssue | SimPullRequest): boolean {
  const value = q.value === "@me" ? world.viewer : q.value;
  const lower = value.toLowerCase();
  const pr = item.kind === "pr" ? item : undefined;
  switch (q.key) {
    case "repo":
      return repo.fullName.toLowerCase() === lower;
    case "is":
    case "type":
      if (lower === "pr" || lower === "pull-request") return item.kind === "pr";
      if (lower === "issue") return item.kind === "issue";
      if (lower === "open" || lower === "closed") return item.state === lower;
      if (lower === "merged") return pr?.merged === true;
      if (lower === "unmerged") return pr !== undefined && !pr.merged;
      if (lower === "draft") return pr?.draft === true;
      return true;
    case "state":
      return item.state === lower;
    case "draft":
      return pr !== undefined && pr.draft === (lower === "true");
    case "author":
      return item.author.toLowerCase() === lower;
    case "assignee":
      return item.assignees.some((a) => a.toLowerCase() === lower);
    case "label":
      return lower.split(",").some((l) => item.labels.some((name) => name.toLowerCase() === l));
    case "review-requested":
      return pr?.requestedReviewers.some((r) => r.toLowerCase() === lower) === true;
    case "reviewed-by":
      return pr?.reviews.some((r) => r.author.toLowerCase() === lower) === true;
    case "head":
      return pr?.headRef === value;
    case "base":
      return pr?.baseRef === value;
    default:
      return true;
  }
}

export function searchIssues(world: World, query: string): SearchItem[] {
  const qualifiers: Qualifier[] = [];
  const words: string[] = [];
  for (const token of tokens(query)) {
    const m = /^(-?)([a-z-]+):(.+)$/i.exec(token);
    if (m)
      qualifiers.push({ negated: m[1] === "-", key: (m[2] as string).toLowerCase(), value: m[3] as string });
    else if (token !== "sort:created-desc") words.push(token.toLowerCase());
  }
  const out: SearchItem[] = [];
  for (const repo of world.repos.values()) {
    for (const item of [...repo.pulls.values(), ...repo.issues.values()]) {
      if (!qualifiers.every((q) => matches(world, q, repo, item) !== q.negated)) continue;
      const text = `${item.title}\n${item.body}`.toLowerCase();
      if (!words.every((w) => text.includes(w))) continue;
      out.push({ repo, item });
    }
  }
  return out.sort((a, b) => b.item.createdAt - a.item.createdAt || b.item.number - a.item.number);
}
