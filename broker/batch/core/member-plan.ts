/**
 * Reads one caller's parsed document and decides, from its syntax alone, whether it can join a
 * merged query; when it can, records every place where the merge must insert a prefix:
 *
 * - before each root field (its alias, or its name when it has none): the per-member alias,
 * - before each variable name (`$owner` → `$b0_owner`), in definitions and usages,
 * - before each fragment name, in definitions and spreads (renamed or deduplicated later).
 *
 * Root fields reached through inline fragments or fragment spreads at the root are root fields
 * too. A fragment used both at the root and below it cannot be both aliased and not, so such a
 * query goes alone. `rateLimit`, `__schema` and `__type` anywhere make a query go alone (their
 * answers would describe the merged query, not the caller's). Schema-dependent checks
 * (validation, cost, variable coercion) are the caller's job (prepare-member.ts): this file
 * stays pure and schema-free.
 */
import {
  type ASTNode,
  type DirectiveNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from "graphql";
import type { AloneReason } from "./alone-reason.js";

export type InsertionPoint =
  | { readonly kind: "root-field"; readonly offset: number; readonly name: string; readonly aliased: boolean }
  | { readonly kind: "variable"; readonly offset: number }
  | { readonly kind: "fragment"; readonly offset: number; readonly name: string };

export interface TextSpan {
  readonly start: number;
  readonly end: number;
  /** Sorted by offset. */
  readonly insertions: readonly InsertionPoint[];
}

export interface FragmentPlan extends TextSpan {
  readonly name: string;
  /** Fragments this one spreads directly, in order of first use. */
  readonly spreads: readonly string[];
  /** It or a fragment it spreads reads a variable: its text differs per member once renamed. */
  readonly usesVariables: boolean;
  /** Spread at the root: its fields get the member's alias, so it is never shared. */
  readonly rootLevel: boolean;
}

export interface MemberPlan {
  readonly operation: OperationDefinitionNode;
  readonly variableDefinitions: readonly TextSpan[];
  /** The inside of the operation's selection set, between its braces. */
  readonly body: TextSpan;
  /** Fragments reachable from the operation, each after the fragments it spreads. */
  readonly fragments: readonly FragmentPlan[];
}

export type PlanResult =
  | { readonly ok: true; readonly plan: MemberPlan }
  | { readonly ok: false; readonly reason: AloneReason; readonly message: string };

/** Fields whose answer would describe the merged query instead of the caller's. */
const WHOLE_QUERY_FIELDS = new Set(["rateLimit", "__schema", "__type"]);

/** Why the query cannot join a merge: a typed result handed up the walk, never thrown. */
type Refusal = Extract<PlanResult, { ok: false }>;

const refuse = (reason: AloneReason, message: string): Refusal => ({ ok: false, reason, message });

// Locations are checked once, up front: graphql-js's parse gives every node one, or (noLocation)
// none; planMember refuses the second as a parse error. A node without one after that is a
// broken document, a genuine error.
function startOf(node: ASTNode): number {
  if (!node.loc) throw new RangeError("a node of a located document has no location");
  return node.loc.start;
}

function endOf(node: ASTNode): number {
  if (!node.loc) throw new RangeError("a node of a located document has no location");
  return node.loc.end;
}

function collectValueVariables(value: ValueNode, sink: InsertionPoint[]): void {
  if (value.kind === Kind.VARIABLE) sink.push({ kind: "variable", offset: startOf(value.name) });
  else if (value.kind === Kind.LIST) for (const item of value.values) collectValueVariables(item, sink);
  else if (value.kind === Kind.OBJECT)
    for (const field of value.fields) collectValueVariables(field.value, sink);
}

function collectDirectiveVariables(directives: readonly DirectiveNode[] | undefined, sink: InsertionPoint[]) {
  for (const directive of directives ?? []) {
    for (const arg of directive.arguments ?? []) collectValueVariables(arg.value, sink);
  }
}

type Level = "root" | "nested";

interface FragmentState {
  readonly level: Level;
  done: boolean;
  plan?: FragmentPlan;
}

class Planner {
  readonly #fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  readonly #states = new Map<string, FragmentState>();
  readonly ordered: FragmentPlan[] = [];

  constructor(document: DocumentNode) {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    this.#fragments = fragments;
  }

  /**
   * `spreads` collects every fragment spread in the text being walked, at any depth. Answers the
   * first reason the text cannot be merged, or undefined when it can.
   */
  walk(
    selectionSet: SelectionSetNode,
    level: Level,
    sink: InsertionPoint[],
    spreads: Set<string>,
  ): Refusal | undefined {
    for (const selection of selectionSet.selections) {
      collectDirectiveVariables(selection.directives, sink);
      if (selection.kind === Kind.FIELD) {
        if (WHOLE_QUERY_FIELDS.has(selection.name.value)) {
          return refuse(
            selection.name.value === "rateLimit" ? "selects-rate-limit" : "introspection",
            `the query selects ${selection.name.value}`,
          );
        }
        if (level === "root") {
          const token = selection.alias ?? selection.name;
          sink.push({
            kind: "root-field",
            offset: startOf(token),
            name: selection.name.value,
            aliased: selection.alias !== undefined,
          });
        }
        for (const arg of selection.arguments ?? []) collectValueVariables(arg.value, sink);
        const refused = selection.selectionSet
          ? this.walk(selection.selectionSet, "nested", sink, spreads)
          : undefined;
        if (refused) return refused;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const refused = this.walk(selection.selectionSet, level, sink, spreads);
        if (refused) return refused;
      } else {
        const name = selection.name.value;
        sink.push({ kind: "fragment", offset: startOf(selection.name), name });
        spreads.add(name);
        const refused = this.#visitFragment(name, level);
        if (refused) return refused;
      }
    }
    return undefined;
  }

  #visitFragment(name: string, level: Level): Refusal | undefined {
    const state = this.#states.get(name);
    if (state) {
      if (state.level !== level) {
        return refuse("root-fragment-reuse", `fragment ${name} is used both at the root and nested`);
      }
      if (!state.done) return refuse("validation-error", `fragment ${name} spreads itself`);
      return undefined;
    }
    const node = this.#fragments.get(name);
    if (!node) return refuse("validation-error", `unknown fragment ${name}`);
    const current: FragmentState = { level, done: false };
    this.#states.set(name, current);
    const sink: InsertionPoint[] = [{ kind: "fragment", offset: startOf(node.name), name }];
    collectDirectiveVariables(node.directives, sink);
    const spreads = new Set<string>();
    const refused = this.walk(node.selectionSet, level, sink, spreads);
    if (refused) return refused;
    const ownVariables = sink.some((point) => point.kind === "variable");
    const spreadVariables = [...spreads].some(
      (spread) => this.#states.get(spread)?.plan?.usesVariables === true,
    );
    const plan: FragmentPlan = {
      name,
      start: startOf(node),
      end: endOf(node),
      insertions: sortInsertions(sink),
      spreads: [...spreads],
      usesVariables: ownVariables || spreadVariables,
      rootLevel: level === "root",
    };
    current.done = true;
    current.plan = plan;
    this.ordered.push(plan);
    return undefined;
  }
}

function sortInsertions(points: InsertionPoint[]): InsertionPoint[] {
  return points.sort((a, b) => a.offset - b.offset);
}

function chooseOperation(
  document: DocumentNode,
  operationName: string | undefined,
): OperationDefinitionNode | PlanResult {
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  if (operationName) {
    const named = operations.find((o) => o.name?.value === operationName);
    return named ?? { ok: false, reason: "no-operation", message: `no operation named ${operationName}` };
  }
  if (operations.length === 1 && operations[0]) return operations[0];
  return operations.length === 0
    ? { ok: false, reason: "no-operation", message: "the document has no operation" }
    : { ok: false, reason: "ambiguous-operation", message: "several operations and no operationName" };
}

export interface PlanOptions {
  /**
   * Plan a mutation too (the write batcher's members, decision 0023); by default a mutation goes
   * alone. A merged mutation runs its members' root fields one after another, in member order,
   * as GitHub runs the root fields of any mutation.
   * @defaultValue false
   */
  readonly mutations?: boolean;
}

/** Plans how to merge the operation GitHub would run for (document, operationName). */
export function planMember(
  document: DocumentNode,
  operationName?: string | null,
  options: PlanOptions = {},
): PlanResult {
  const chosen = chooseOperation(document, operationName ?? undefined);
  if ("ok" in chosen) return chosen;
  const operation = chosen;
  if (operation.operation === "mutation" && !options.mutations)
    return { ok: false, reason: "mutation", message: "a mutation" };
  if (operation.operation === "subscription") {
    return { ok: false, reason: "subscription", message: "a subscription" };
  }
  if (
    (operation.directives?.length ?? 0) > 0 ||
    operation.variableDefinitions?.some((d) => d.directives?.length)
  ) {
    return { ok: false, reason: "operation-directives", message: "directives on the operation" };
  }
  if (!document.loc || !operation.loc) {
    return refuse("parse-error", "the document was parsed without locations");
  }
  const planner = new Planner(document);
  const bodySink: InsertionPoint[] = [];
  const refused = planner.walk(operation.selectionSet, "root", bodySink, new Set());
  if (refused) return refused;
  const variableDefinitions = (operation.variableDefinitions ?? []).map((definition) => ({
    start: startOf(definition),
    end: endOf(definition),
    insertions: [{ kind: "variable", offset: startOf(definition.variable.name) } as const],
  }));
  const plan: MemberPlan = {
    operation,
    variableDefinitions,
    body: {
      start: startOf(operation.selectionSet) + 1,
      end: endOf(operation.selectionSet) - 1,
      insertions: sortInsertions(bodySink),
    },
    fragments: planner.ordered,
  };
  return { ok: true, plan };
}
