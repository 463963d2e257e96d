/**
 * What the broker needs to know about a GraphQL request before deciding anything: its operation
 * type, what GitHub will charge (github/ computeQueryCost), which resources it reads (tags), which
 * it changes (mutations), how fresh its answer must be (data class), and a canonical cache key.
 *
 * Tags come from the arguments GitHub resolves by: `repository(owner:, name:)`, then
 * `pullRequest(number:)` / `issue(number:)` / `issueOrPullRequest(number:)` under it,
 * `pullRequests`/`issues` connections (lists), and `node(id:)` / `nodes(ids:)`. Mutations name
 * their targets by global id in `input` (pullRequestId, subjectId, labelableId, repositoryId...);
 * those ids are returned for the caller to translate with what it has learned from earlier answers.
 */
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  parse,
  print,
  type SelectionSetNode,
  valueFromASTUntyped,
} from "graphql";
import {
  computeQueryCost,
  effectiveVariables,
  type QueryCost,
  selectOperation,
} from "../../../github/index.js";
import {
  branchesTag,
  branchTag,
  type Facet,
  facetTag,
  type ListKind,
  listFacetTag,
  listTag,
  nodeFacetTag,
  objectKey,
  repoTag,
  type Tag,
} from "./facets.js";
import { connectionMemberFacets, mutationEffect, selectionFacets } from "./graphql-facets.js";
import { NO_WRITE, type WriteEffect } from "./rest-facets.js";

export type DataClass = "checks" | "pullRequest" | "issue" | "other";

export interface GraphQLAnalysis {
  readonly operationType: "query" | "mutation" | "subscription";
  readonly operationName: string | undefined;
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly cost: QueryCost;
  readonly dataClass: DataClass;
  /** Tags the answer depends on. */
  readonly reads: readonly Tag[];
  /** Tags a mutation changes directly (resolved from owner/name/number arguments). */
  readonly writes: readonly Tag[];
  /** Global ids a mutation names in its input; the caller maps them to tags. */
  readonly writeNodeIds: readonly string[];
  /** What a mutation changes, in the facet model (resolved against learned aliases by the cache). */
  readonly writeEffect: WriteEffect;
  readonly introspection: boolean;
  readonly selectsRateLimit: boolean;
  /** Names of the operation's root fields (for a mutation: which mutations it runs). */
  readonly rootFields: readonly string[];
  /** Names a PR, issue or node (by number or id): with no facet tags, it read only immutable facts. */
  readonly namesObjects: boolean;
  /**
   * A query of nothing but repositories' settings (STATIC_REPOSITORY_FIELDS: ids, names, what the
   * repository allows, its default branch's name): no agent's motion changes them, only a write.
   */
  readonly staticRepository: boolean;
  /** Canonical text + variables + operation name: equal for requests GitHub would answer equally. */
  readonly canonicalKey: string;
}

export type AnalysisFailure =
  | { readonly error: "syntax"; readonly message: string }
  | { readonly error: "operation"; readonly message: string };

const CHECK_FIELDS = new Set([
  "statusCheckRollup",
  "checkSuites",
  "checkRuns",
  "contexts",
  "checkSuite",
  "status",
]);
const PR_FIELDS = new Set(["pullRequest", "pullRequests", "search"]);
// issueOrPullRequest is how gh reads issues (`gh issue view`): issue freshness, not PR freshness.
const ISSUE_FIELDS = new Set(["issue", "issues", "issueOrPullRequest"]);

/**
 * Fields of `Repository` (and of what they lead to: its owner, its parent, its default branch's
 * ref) that only an administrator's write changes, never a push, a PR, a review or CI: gh 2.23's
 * `RepositoryInfo` (every `gh pr create`) reads these alone. A default branch's `target`, a
 * repository's `pushedAt`, `updatedAt`, counts or any connection are not here: they move with
 * ordinary work.
 */
const STATIC_REPOSITORY_FIELDS = new Set([
  "__typename",
  "id",
  "databaseId",
  "name",
  "nameWithOwner",
  "owner",
  "login",
  "url",
  "description",
  "hasIssuesEnabled",
  "hasWikiEnabled",
  "hasProjectsEnabled",
  "hasDiscussionsEnabled",
  "viewerPermission",
  "defaultBranchRef",
  "parent",
  "isFork",
  "isPrivate",
  "isArchived",
  "visibility",
  "mergeCommitAllowed",
  "rebaseMergeAllowed",
  "squashMergeAllowed",
  "autoMergeAllowed",
  "deleteBranchOnMerge",
]);

/** Deterministic JSON: object keys sorted, so equal variables give equal keys. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(",")}}`;
}

interface Walk {
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly reads: Set<Tag>;
  readonly writes: Set<Tag>;
  readonly ids: Set<string>;
  readonly fieldNames: Set<string>;
  /** Numbered objects a mutation's selection names by owner/name/number. */
  readonly objects: Set<string>;
  /** createPullRequest / createIssue inputs: repositoryId and head branch. */
  readonly created: { repositoryId: string; kind: ListKind; branch?: string }[];
  /** An updatePullRequest whose input names a base (or whose input is not known). */
  baseChanged: boolean;
  introspection: boolean;
  rateLimit: boolean;
}

function args(field: FieldNode, variables: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const arg of field.arguments ?? [])
    out[arg.name.value] = valueFromASTUntyped(arg.value, variables as Record<string, unknown>);
  return out;
}

function collectIds(value: unknown, into: Set<string>, key = ""): void {
  if (typeof value === "string" && /(^id$|Id$)/.test(key)) into.add(value);
  else if (Array.isArray(value))
    for (const v of value) collectIds(v, into, key.endsWith("Ids") ? key.replace(/s$/, "") : key);
  else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) collectIds(v, into, k);
}

function walkSelections(
  w: Walk,
  set: SelectionSetNode,
  repo: { owner: string; name: string } | undefined,
  depth: number,
  visited: Set<string>,
): void {
  for (const selection of set.selections) {
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      walkSelections(w, selection.selectionSet, repo, depth, visited);
      continue;
    }
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = w.fragments.get(selection.name.value);
      if (fragment && !visited.has(fragment.name.value)) {
        walkSelections(w, fragment.selectionSet, repo, depth, new Set(visited).add(fragment.name.value));
      }
      continue;
    }
    const name = selection.name.value;
    w.fieldNames.add(name);
    if (name === "__schema" || name === "__type") w.introspection = true;
    if (name === "rateLimit" && depth === 0) w.rateLimit = true;
    const a = args(selection, w.variables);
    let nextRepo = repo;
    if (name === "repository" && typeof a.owner === "string" && typeof a.name === "string") {
      nextRepo = { owner: a.owner, name: a.name };
      w.reads.add(repoTag(a.owner, a.name));
    } else if (
      repo &&
      (name === "pullRequest" || name === "issue" || name === "issueOrPullRequest") &&
      a.number != null
    ) {
      const object = objectKey(repo.owner, repo.name, String(a.number));
      w.objects.add(object);
      for (const facet of selectionFacets(selection.selectionSet, w.fragments))
        w.reads.add(facetTag(object, facet));
    } else if (repo && (name === "pullRequests" || name === "issues")) {
      const kind: ListKind = name === "pullRequests" ? "pulls" : "issues";
      const { facets } = connectionMemberFacets(selection.selectionSet, w.fragments);
      const branch = kind === "pulls" && typeof a.headRefName === "string" ? a.headRefName : undefined;
      if (branch !== undefined) {
        // A branch lookup: which PRs that head has, and their states, move with that branch only.
        w.reads.add(branchTag(repo.owner, repo.name, branch));
        w.reads.add(branchesTag(repo.owner, repo.name));
        facets.delete("state");
      } else w.reads.add(listTag(repo.owner, repo.name, kind));
      for (const facet of facets) w.reads.add(listFacetTag(repo.owner, repo.name, kind, facet));
    } else if (depth === 0 && name === "node" && typeof a.id === "string") {
      w.objects.add(`node:${a.id}`);
      for (const facet of nodeFacets(selection, w)) w.reads.add(nodeFacetTag(a.id, facet));
    } else if (depth === 0 && name === "nodes" && Array.isArray(a.ids)) {
      const facets = nodeFacets(selection, w);
      for (const id of a.ids)
        if (typeof id === "string") for (const facet of facets) w.reads.add(nodeFacetTag(id, facet));
    }
    if (depth === 0 && (name === "createPullRequest" || name === "createIssue")) {
      const input = a.input as Record<string, unknown> | undefined;
      if (input && typeof input.repositoryId === "string") {
        w.created.push({
          repositoryId: input.repositoryId,
          kind: name === "createPullRequest" ? "pulls" : "issues",
          ...(typeof input.headRefName === "string"
            ? { branch: input.headRefName.replace(/^[^:]+:/, "") }
            : {}),
        });
      }
    }
    if (depth === 0 && name === "updatePullRequest") {
      // A new base is a new diff, commit list and file list: the head facet moves with core.
      const input = a.input;
      if (!input || typeof input !== "object" || "baseRefName" in input) w.baseChanged = true;
    }
    if (depth === 0 && a.input !== undefined) collectIds(a.input, w.ids);
    if (selection.selectionSet) walkSelections(w, selection.selectionSet, nextRepo, depth + 1, visited);
  }
}

/** Facets a node(id:) selection reads; a node of unknown type counts as every facet it may show. */
function nodeFacets(selection: FieldNode, w: Walk): Set<Facet> {
  const facets = selectionFacets(selection.selectionSet, w.fragments);
  // A node read of nothing but its id and type still names the object; it changes with nothing.
  return facets;
}

function dataClassOf(fieldNames: ReadonlySet<string>): DataClass {
  for (const f of CHECK_FIELDS) if (fieldNames.has(f) && f !== "status") return "checks";
  for (const f of PR_FIELDS) if (fieldNames.has(f)) return "pullRequest";
  for (const f of ISSUE_FIELDS) if (fieldNames.has(f)) return "issue";
  return "other";
}

export interface AnalyzeInput {
  readonly schema: GraphQLSchema;
  readonly query: string;
  readonly variables?: Readonly<Record<string, unknown>> | undefined;
  readonly operationName?: string | undefined;
  /** A document parsed earlier from the same text (parse cache). */
  readonly document?: DocumentNode | undefined;
  /** print(document), when the caller has it memoised. */
  readonly printed?: string | undefined;
}

export function analyzeGraphQL(input: AnalyzeInput): GraphQLAnalysis | AnalysisFailure {
  let document = input.document;
  if (!document) {
    try {
      document = parse(input.query, { maxTokens: 50_000 });
    } catch (error) {
      return { error: "syntax", message: (error as Error).message };
    }
  }
  const operation = selectOperation(document, input.operationName);
  if (!operation) {
    return {
      error: "operation",
      message: input.operationName
        ? `Unknown operation named "${input.operationName}".`
        : "An operation name is required when the document has several operations.",
    };
  }
  const variables = effectiveVariables(operation, input.variables ?? {});
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions)
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const w: Walk = {
    fragments,
    variables,
    reads: new Set(),
    writes: new Set(),
    ids: new Set(),
    fieldNames: new Set(),
    objects: new Set(),
    created: [],
    baseChanged: false,
    introspection: false,
    rateLimit: false,
  };
  walkSelections(w, operation.selectionSet, undefined, 0, new Set());
  const rootFields = operation.selectionSet.selections.flatMap((s) =>
    s.kind === Kind.FIELD ? [s.name.value] : [],
  );
  const staticRepository =
    operation.operation === "query" &&
    rootFields.length > 0 &&
    rootFields.length === operation.selectionSet.selections.length &&
    rootFields.every((f) => f === "repository") &&
    w.reads.size > 0 &&
    [...w.reads].every((t) => t.startsWith("repo:")) &&
    [...w.fieldNames].every((f) => f === "repository" || STATIC_REPOSITORY_FIELDS.has(f));
  let writeEffect: WriteEffect = NO_WRITE;
  if (operation.operation === "mutation") {
    const roots = operation.selectionSet.selections.flatMap((sel) =>
      sel.kind === Kind.FIELD ? [sel.name.value] : [],
    );
    const facets = new Set<Facet>();
    for (const root of roots) for (const f of mutationEffect(root).facets) facets.add(f);
    if (w.baseChanged) facets.add("head");
    // Ids in the input name the objects changed (ids of labels, users, etc. resolve to nothing
    // learned and cost only their own node tags).
    const changed = [...facets];
    const created = w.created[0];
    writeEffect = {
      tags: [],
      objects: [...w.objects]
        .filter((o) => o.startsWith("num:"))
        .map((object) => ({ object, facets: changed })),
      nodeIds:
        changed.length > 0
          ? [...w.ids].filter((id) => id !== created?.repositoryId).map((id) => ({ id, facets: changed }))
          : [],
      branches: [],
      ...(created ? { createdIn: created } : {}),
    };
  }
  const cost = computeQueryCost({
    schema: input.schema,
    document,
    operationName: input.operationName,
    variables: input.variables,
  });
  return {
    operationType: operation.operation,
    operationName: operation.name?.value ?? input.operationName,
    document,
    operation,
    variables,
    cost,
    dataClass: dataClassOf(w.fieldNames),
    reads: operation.operation === "query" ? [...w.reads] : [],
    writes: [...w.writes],
    writeNodeIds: operation.operation === "mutation" ? [...w.ids] : [],
    writeEffect,
    introspection: w.introspection,
    namesObjects: w.objects.size > 0,
    staticRepository,
    selectsRateLimit: w.rateLimit,
    rootFields,
    canonicalKey: `${input.printed ?? print(document)}\u0000${stableStringify(variables)}\u0000${operation.name?.value ?? ""}`,
  };
}

export interface LearnedAliases {
  /** Global id → `num:o/r#n` (a PR or issue) or `repo:o/r`. */
  readonly ids: Map<string, string>;
  /** `num:o/r#n` → its head branch (PRs whose answer showed headRefName). */
  readonly branches: Map<string, string>;
}

/**
 * From an answer, the global ids it reveals for numbered objects and repositories, and the head
 * branch of PRs, so later writes naming those ids (pullRequestId, subjectId, repositoryId) or that
 * branch move exactly the tags of that object.
 */
export function learnIds(data: unknown, repo: { owner: string; name: string } | undefined): LearnedAliases {
  const learned: LearnedAliases = { ids: new Map(), branches: new Map() };
  if (!repo) return learned;
  const visit = (value: unknown, parentKey: string, depth: number) => {
    if (depth > 12 || value === null || typeof value !== "object") return;
    if (Array.isArray(value)) {
      for (const v of value) visit(v, parentKey, depth + 1);
      return;
    }
    const record = value as Record<string, unknown>;
    if (
      typeof record.number === "number" &&
      (typeof record.id === "string" || typeof record.headRefName === "string")
    ) {
      const object = objectKey(repo.owner, repo.name, record.number);
      if (typeof record.id === "string") learned.ids.set(record.id, object);
      if (typeof record.headRefName === "string") learned.branches.set(object, record.headRefName);
    } else if (typeof record.id === "string" && parentKey === "repository") {
      learned.ids.set(record.id, repoTag(repo.owner, repo.name));
    }
    for (const [k, v] of Object.entries(record)) visit(v, k, depth + 1);
  };
  visit(data, "", 0);
  return learned;
}

/** The single repository an analysis reads, when there is exactly one. */
export function singleRepo(analysis: GraphQLAnalysis): { owner: string; name: string } | undefined {
  const repos = analysis.reads.filter((t) => t.startsWith("repo:")).map((t) => t.slice(5));
  if (repos.length !== 1) return undefined;
  const [owner, name] = (repos[0] ?? "").split("/");
  return owner && name ? { owner, name } : undefined;
}
