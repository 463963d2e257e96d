/**
 * Which facet of a PR or issue each GraphQL field shows, and which facets each mutation changes
 * (facets.ts has the model). Unknown fields count as `core`, unknown mutations as every facet: a
 * field or mutation this table does not know can only cost a cache hit, never serve a stale answer.
 */
import type { FieldNode, FragmentDefinitionNode, SelectionSetNode } from "graphql";
import { Kind } from "graphql";
import { FACETS, type Facet } from "./facets.js";

/** Fields no motion changes: identity, authorship, creation. */
const IMMUTABLE_FIELDS = new Set([
  "__typename",
  "id",
  "number",
  "databaseId",
  "url",
  "permalink",
  "resourcePath",
  "headRefName",
  "headRepository",
  "headRepositoryOwner",
  "isCrossRepository",
  "author",
  "authorAssociation",
  "createdAt",
  "repository",
]);

const FIELD_FACETS: Readonly<Record<string, readonly Facet[]>> = {
  state: ["state"],
  closed: ["state"],
  closedAt: ["state"],
  merged: ["state"],
  mergedAt: ["state"],
  mergedBy: ["state"],
  mergeCommit: ["state"],
  isInMergeQueue: ["state"],
  stateReason: ["state"],
  updatedAt: ["updated"],
  lastEditedAt: ["core"],
  headRefOid: ["head"],
  commits: ["head"],
  files: ["head"],
  additions: ["head"],
  deletions: ["head"],
  changedFiles: ["head"],
  potentialMergeCommit: ["head"],
  statusCheckRollup: ["checks"],
  checkSuites: ["checks"],
  checkRuns: ["checks"],
  contexts: ["checks"],
  reviews: ["reviews"],
  latestReviews: ["reviews"],
  latestOpinionatedReviews: ["reviews"],
  reviewDecision: ["reviews"],
  comments: ["comments"],
  // Comments a PR received: GitHub does not say whether review comments count; both move it.
  totalCommentsCount: ["comments", "threads"],
  reviewThreads: ["threads"],
  mergeable: ["merge"],
  mergeStateStatus: ["merge"],
  canBeRebased: ["merge"],
  isMergeQueueEnabled: ["core"],
};

/** Fields whose subtree may hold check data (statusCheckRollup under commits). */
const CHECK_FIELDS = new Set(["statusCheckRollup", "checkSuites", "checkRuns", "contexts", "status"]);

function subtreeReadsChecks(
  set: SelectionSetNode | undefined,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  depth: number,
): boolean {
  if (!set || depth > 12) return false;
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) {
      if (CHECK_FIELDS.has(s.name.value)) return true;
      if (subtreeReadsChecks(s.selectionSet, fragments, depth + 1)) return true;
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      if (subtreeReadsChecks(s.selectionSet, fragments, depth + 1)) return true;
    } else {
      const f = fragments.get(s.name.value);
      if (f && subtreeReadsChecks(f.selectionSet, fragments, depth + 1)) return true;
    }
  }
  return false;
}

/** The fields selected directly on an object, through inline fragments and fragment spreads. */
export function directFields(
  set: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  seen: Set<string> = new Set(),
): FieldNode[] {
  const out: FieldNode[] = [];
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) out.push(s);
    else if (s.kind === Kind.INLINE_FRAGMENT) out.push(...directFields(s.selectionSet, fragments, seen));
    else if (!seen.has(s.name.value)) {
      seen.add(s.name.value);
      const f = fragments.get(s.name.value);
      if (f) out.push(...directFields(f.selectionSet, fragments, seen));
    }
  }
  return out;
}

/** The facets a selection on a PR or issue reads. */
export function selectionFacets(
  set: SelectionSetNode | undefined,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): Set<Facet> {
  const facets = new Set<Facet>();
  if (!set) return facets;
  for (const field of directFields(set, fragments)) {
    const name = field.name.value;
    if (IMMUTABLE_FIELDS.has(name)) continue;
    for (const f of FIELD_FACETS[name] ?? ["core"]) facets.add(f);
    if (name === "commits" && subtreeReadsChecks(field.selectionSet, fragments, 0)) facets.add("checks");
  }
  return facets;
}

/** The member selection of a connection: `nodes { … }` and `edges { node { … } }`. */
export function connectionMemberFacets(
  set: SelectionSetNode | undefined,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): { facets: Set<Facet>; readsCount: boolean } {
  const facets = new Set<Facet>();
  let readsCount = false;
  if (!set) return { facets, readsCount };
  for (const field of directFields(set, fragments)) {
    const name = field.name.value;
    if (name === "nodes") for (const f of selectionFacets(field.selectionSet, fragments)) facets.add(f);
    else if (name === "edges" && field.selectionSet) {
      for (const edgeField of directFields(field.selectionSet, fragments)) {
        if (edgeField.name.value === "node")
          for (const f of selectionFacets(edgeField.selectionSet, fragments)) facets.add(f);
      }
    } else if (name === "totalCount" || name === "pageInfo") readsCount = true;
  }
  return { facets, readsCount };
}

export interface MutationEffect {
  /** Facets of the objects the mutation names (by id or number) that it changes. */
  readonly facets: readonly Facet[];
  /** Creates a member of a repository's lists. */
  readonly creates?: "pulls" | "issues";
}

const MUTATION_EFFECTS: Readonly<Record<string, MutationEffect>> = {
  addComment: { facets: ["comments"] },
  updateIssueComment: { facets: ["comments"] },
  deleteIssueComment: { facets: ["comments"] },
  minimizeComment: { facets: ["comments"] },
  createPullRequest: { facets: [], creates: "pulls" },
  createIssue: { facets: [], creates: "issues" },
  mergePullRequest: { facets: ["state", "head"] },
  closePullRequest: { facets: ["state"] },
  reopenPullRequest: { facets: ["state"] },
  closeIssue: { facets: ["state"] },
  reopenIssue: { facets: ["state"] },
  updatePullRequest: { facets: ["core"] },
  updateIssue: { facets: ["core"] },
  updatePullRequestBranch: { facets: ["head"] },
  markPullRequestReadyForReview: { facets: ["core"] },
  convertPullRequestToDraft: { facets: ["core"] },
  addLabelsToLabelable: { facets: ["core"] },
  removeLabelsFromLabelable: { facets: ["core"] },
  clearLabelsFromLabelable: { facets: ["core"] },
  addAssigneesToAssignable: { facets: ["core"] },
  removeAssigneesFromAssignable: { facets: ["core"] },
  requestReviews: { facets: ["core", "reviews"] },
  enablePullRequestAutoMerge: { facets: ["core"] },
  disablePullRequestAutoMerge: { facets: ["core"] },
  addPullRequestReview: { facets: ["reviews", "threads", "comments"] },
  submitPullRequestReview: { facets: ["reviews", "threads", "comments"] },
  dismissPullRequestReview: { facets: ["reviews"] },
  deletePullRequestReview: { facets: ["reviews", "threads"] },
  addPullRequestReviewComment: { facets: ["threads"] },
  addPullRequestReviewThread: { facets: ["threads"] },
  addPullRequestReviewThreadReply: { facets: ["threads"] },
  resolveReviewThread: { facets: ["threads"] },
  unresolveReviewThread: { facets: ["threads"] },
  addReaction: { facets: ["core", "comments", "reviews", "threads"] },
  removeReaction: { facets: ["core", "comments", "reviews", "threads"] },
};

/** What a mutation's root field changes; an unknown mutation changes every facet it names. */
export function mutationEffect(rootField: string): MutationEffect {
  return MUTATION_EFFECTS[rootField] ?? { facets: [...FACETS] };
}
