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
import { listTag, nodeTag, numberTag, repoTag, type Tag } from "./resource-tags.js";

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
  readonly introspection: boolean;
  readonly selectsRateLimit: boolean;
  /** Names of the operation's root fields (for a mutation: which mutations it runs). */
  readonly rootFields: readonly string[];
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
const PR_FIELDS = new Set(["pullRequest", "pullRequests", "issueOrPullRequest", "search"]);
const ISSUE_FIELDS = new Set(["issue", "issues"]);

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
      w.reads.add(numberTag(repo.owner, repo.name, String(a.number)));
    } else if (repo && (name === "pullRequests" || name === "issues")) {
      w.reads.add(listTag(repo.owner, repo.name));
    } else if (depth === 0 && name === "node" && typeof a.id === "string") {
      w.reads.add(nodeTag(a.id));
    } else if (depth === 0 && name === "nodes" && Array.isArray(a.ids)) {
      for (const id of a.ids) if (typeof id === "string") w.reads.add(nodeTag(id));
    }
    if (depth === 0 && a.input !== undefined) collectIds(a.input, w.ids);
    if (selection.selectionSet) walkSelections(w, selection.selectionSet, nextRepo, depth + 1, visited);
  }
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
    introspection: false,
    rateLimit: false,
  };
  walkSelections(w, operation.selectionSet, undefined, 0, new Set());
  if (operation.operation === "mutation") {
    // A mutation's own repository/number arguments name what it changes, and every list in that repo.
    for (const tag of w.reads) {
      if (tag.startsWith("num:")) {
        w.writes.add(tag);
        w.writes.add(`list:${tag.slice(4).split("#")[0]}`);
      }
    }
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
    introspection: w.introspection,
    selectsRateLimit: w.rateLimit,
    rootFields: operation.selectionSet.selections.flatMap((s) =>
      s.kind === Kind.FIELD ? [s.name.value] : [],
    ),
    canonicalKey: `${input.printed ?? print(document)}\u0000${stableStringify(variables)}\u0000${operation.name?.value ?? ""}`,
  };
}

/**
 * From an answer, the global ids it reveals for numbered objects and repositories, so later
 * mutations naming those ids (pullRequestId, subjectId, repositoryId) invalidate the right tags.
 */
export function learnIds(
  data: unknown,
  repo: { owner: string; name: string } | undefined,
): Map<string, Tag[]> {
  const learned = new Map<string, Tag[]>();
  if (!repo) return learned;
  const visit = (value: unknown, parentKey: string, depth: number) => {
    if (depth > 12 || value === null || typeof value !== "object") return;
    if (Array.isArray(value)) {
      for (const v of value) visit(v, parentKey, depth + 1);
      return;
    }
    const record = value as Record<string, unknown>;
    if (typeof record.id === "string") {
      if (typeof record.number === "number") {
        learned.set(record.id, [
          numberTag(repo.owner, repo.name, record.number),
          listTag(repo.owner, repo.name),
        ]);
      } else if (parentKey === "repository") {
        learned.set(record.id, [repoTag(repo.owner, repo.name), listTag(repo.owner, repo.name)]);
      }
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
