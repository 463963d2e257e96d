/**
 * GitHub's GraphQL arithmetic, as documented in "Rate limits and node limits for the GraphQL API"
 * (https://docs.github.com/en/graphql/overview/rate-limits-and-node-limits-for-the-graphql-api):
 *
 * - Every connection must carry `first` or `last` (1..100) when it asks for nodes or edges.
 * - Requests: each connection needs one request per instance of its parent, i.e. the product of
 *   the page sizes of the connections that enclose it. The point cost is the sum over all
 *   connections, divided by 100 and rounded, with a minimum of 1.
 * - Nodes: each connection contributes its page size times the product of the enclosing page
 *   sizes; a query over 500,000 nodes is refused before it runs.
 *
 * The simulator charges with this module and the broker predicts charges with it, so both agree
 * by construction. Pure: takes a parsed document and the schema, touches nothing else.
 */
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
  getNamedType,
  isCompositeType,
  isInterfaceType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
  valueFromASTUntyped,
} from "graphql";

/** https://docs.github.com/en/graphql/overview/rate-limits-and-node-limits-for-the-graphql-api#node-limit */
export const MAX_NODE_LIMIT = 500_000;
/** Largest page a connection may ask for. */
export const MAX_PAGE_SIZE = 100;

export interface ConnectionCost {
  /** Response path of the connection, e.g. `repository.pullRequest.reviews` (aliases as written). */
  readonly path: string;
  readonly pageSize: number;
  /** Product of the page sizes of the enclosing connections. */
  readonly multiplier: number;
  readonly requests: number;
  readonly nodes: number;
}

export interface CostError {
  readonly type: "MISSING_PAGINATION_BOUNDARIES" | "EXCESSIVE_PAGINATION" | "MAX_NODE_LIMIT_EXCEEDED";
  readonly message: string;
  readonly path: readonly string[];
  readonly locations?: readonly { line: number; column: number }[];
}

export interface QueryCost {
  /** Σ connection requests. */
  readonly requests: number;
  /** Points GitHub charges: max(1, round(requests / 100)). */
  readonly cost: number;
  readonly nodeCount: number;
  readonly connections: readonly ConnectionCost[];
  readonly errors: readonly CostError[];
}

export function pointsForRequests(requests: number): number {
  return Math.max(1, Math.round(requests / 100));
}

function isConnectionType(type: GraphQLCompositeType): boolean {
  if (!(isObjectType(type) || isInterfaceType(type)) || !type.name.endsWith("Connection")) return false;
  const fields = type.getFields();
  return "pageInfo" in fields || "edges" in fields || "nodes" in fields;
}

/** Selections that need no page of nodes: GitHub accepts these on a connection without first/last. */
const COUNT_ONLY_FIELDS = new Set(["totalCount", "pageInfo", "__typename", "totalDiskUsage", "isOverLimit"]);

interface WalkContext {
  readonly schema: GraphQLSchema;
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly connections: ConnectionCost[];
  readonly errors: CostError[];
  readonly seen: Set<string>;
}

function argumentValue(node: ValueNode | undefined, variables: Readonly<Record<string, unknown>>): unknown {
  if (!node) return undefined;
  return valueFromASTUntyped(node, variables as Record<string, unknown>);
}

function isSkipped(
  field: {
    directives?: readonly {
      name: { value: string };
      arguments?: readonly { name: { value: string }; value: ValueNode }[];
    }[];
  },
  variables: Readonly<Record<string, unknown>>,
): boolean {
  for (const directive of field.directives ?? []) {
    const ifArg = directive.arguments?.find((a) => a.name.value === "if");
    const value = argumentValue(ifArg?.value, variables);
    if (directive.name.value === "skip" && value === true) return true;
    if (directive.name.value === "include" && value === false) return true;
  }
  return false;
}

/** Flattens fragment spreads and inline fragments into (field, parent type) pairs. */
function collectFields(
  ctx: WalkContext,
  selectionSet: SelectionSetNode,
  parentType: GraphQLCompositeType,
  out: { field: FieldNode; parent: GraphQLCompositeType; typeCondition: string }[],
  typeCondition: string,
  visitedFragments: Set<string>,
): void {
  for (const selection of selectionSet.selections) {
    if (isSkipped(selection, ctx.variables)) continue;
    if (selection.kind === Kind.FIELD) {
      out.push({ field: selection, parent: parentType, typeCondition });
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const conditionName = selection.typeCondition?.name.value;
      const conditionType = conditionName ? ctx.schema.getType(conditionName) : parentType;
      if (conditionType && isCompositeType(conditionType)) {
        collectFields(
          ctx,
          selection.selectionSet,
          conditionType,
          out,
          conditionName ?? typeCondition,
          visitedFragments,
        );
      }
    } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const name = selection.name.value;
      if (visitedFragments.has(name)) continue;
      const fragment = ctx.fragments.get(name);
      if (!fragment) continue;
      const conditionType = ctx.schema.getType(fragment.typeCondition.name.value);
      if (conditionType && isCompositeType(conditionType)) {
        const nextVisited = new Set(visitedFragments).add(name);
        collectFields(
          ctx,
          fragment.selectionSet,
          conditionType,
          out,
          fragment.typeCondition.name.value,
          nextVisited,
        );
      }
    }
  }
}

function fieldDefinition(
  parent: GraphQLCompositeType,
  name: string,
): GraphQLField<unknown, unknown> | undefined {
  if (isObjectType(parent) || isInterfaceType(parent)) return parent.getFields()[name];
  return undefined;
}

function selectsNodes(ctx: WalkContext, field: FieldNode, type: GraphQLCompositeType): boolean {
  if (!field.selectionSet) return false;
  const fields: { field: FieldNode; parent: GraphQLCompositeType; typeCondition: string }[] = [];
  collectFields(ctx, field.selectionSet, type, fields, "", new Set());
  return fields.some((f) => !COUNT_ONLY_FIELDS.has(f.field.name.value));
}

function location(field: FieldNode) {
  return field.loc ? [{ line: field.loc.startToken.line, column: field.loc.startToken.column }] : undefined;
}

function walk(
  ctx: WalkContext,
  selectionSet: SelectionSetNode,
  parentType: GraphQLCompositeType,
  multiplier: number,
  path: readonly string[],
): void {
  const fields: { field: FieldNode; parent: GraphQLCompositeType; typeCondition: string }[] = [];
  collectFields(ctx, selectionSet, parentType, fields, "", new Set());
  for (const { field, parent, typeCondition } of fields) {
    const name = field.name.value;
    if (name.startsWith("__")) continue;
    const definition = fieldDefinition(parent, name);
    if (!definition || !field.selectionSet) continue;
    const named = getNamedType(definition.type);
    if (!isCompositeType(named)) continue;
    const responseKey = field.alias ? `${field.alias.value}:${name}` : name;
    const fieldPath = [...path, responseKey];

    if (!isConnectionType(named)) {
      walk(ctx, field.selectionSet, named, multiplier, fieldPath);
      continue;
    }
    const args = new Map(field.arguments?.map((a) => [a.name.value, argumentValue(a.value, ctx.variables)]));
    const first = args.get("first");
    const last = args.get("last");
    const errPath = [...path.map((p) => p.split(":")[0] ?? p), field.alias?.value ?? name];
    if (first == null && last == null) {
      if (selectsNodes(ctx, field, named)) {
        const loc = location(field);
        ctx.errors.push({
          type: "MISSING_PAGINATION_BOUNDARIES",
          message: `You must provide a \`first\` or \`last\` value to properly paginate the \`${name}\` connection.`,
          path: errPath,
          ...(loc ? { locations: loc } : {}),
        });
      }
      continue;
    }
    for (const [argName, value] of [
      ["first", first],
      ["last", last],
    ] as const) {
      if (typeof value === "number" && (value > MAX_PAGE_SIZE || value < 0)) {
        const loc = location(field);
        ctx.errors.push({
          type: "EXCESSIVE_PAGINATION",
          message:
            value > MAX_PAGE_SIZE
              ? `Requesting ${value} records on the \`${name}\` connection exceeds the \`${argName}\` limit of ${MAX_PAGE_SIZE} records.`
              : `\`${argName}\` on the \`${name}\` connection cannot be less than zero.`,
          path: errPath,
          ...(loc ? { locations: loc } : {}),
        });
      }
    }
    const raw = typeof first === "number" ? first : typeof last === "number" ? last : 0;
    const pageSize = Math.min(Math.max(raw, 0), MAX_PAGE_SIZE);
    const key = `${typeCondition}|${fieldPath.join(".")}`;
    if (!ctx.seen.has(key)) {
      ctx.seen.add(key);
      ctx.connections.push({
        path: fieldPath.join("."),
        pageSize,
        multiplier,
        requests: multiplier,
        nodes: multiplier * pageSize,
      });
    }
    walk(ctx, field.selectionSet, named, multiplier * Math.max(pageSize, 1), fieldPath);
  }
}

export interface CostInput {
  readonly schema: GraphQLSchema;
  readonly document: DocumentNode;
  readonly operationName?: string | undefined;
  readonly variables?: Readonly<Record<string, unknown>> | undefined;
}

/** Finds the operation GitHub would run: the named one, or the only one. */
export function selectOperation(
  document: DocumentNode,
  operationName?: string,
): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  if (operationName) return operations.find((o) => o.name?.value === operationName);
  return operations.length === 1 ? operations[0] : undefined;
}

/** Variables as the operation sees them: given values over declared defaults. */
export function effectiveVariables(
  operation: OperationDefinitionNode,
  given: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const def of operation.variableDefinitions ?? []) {
    const name = def.variable.name.value;
    if (name in given) out[name] = given[name];
    else if (def.defaultValue) out[name] = valueFromASTUntyped(def.defaultValue);
  }
  return out;
}

export function computeQueryCost(input: CostInput): QueryCost {
  const operation = selectOperation(input.document, input.operationName);
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of input.document.definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  }
  const ctx: WalkContext = {
    schema: input.schema,
    fragments,
    variables: operation ? effectiveVariables(operation, input.variables) : {},
    connections: [],
    errors: [],
    seen: new Set(),
  };
  const root =
    operation?.operation === "mutation"
      ? input.schema.getMutationType()
      : operation?.operation === "subscription"
        ? input.schema.getSubscriptionType()
        : input.schema.getQueryType();
  if (operation && root) walk(ctx, operation.selectionSet, root, 1, []);
  const requests = ctx.connections.reduce((sum, c) => sum + c.requests, 0);
  const nodeCount = ctx.connections.reduce((sum, c) => sum + c.nodes, 0);
  const errors = [...ctx.errors];
  if (nodeCount > MAX_NODE_LIMIT) {
    errors.push({
      type: "MAX_NODE_LIMIT_EXCEEDED",
      message: `This query requests up to ${nodeCount.toLocaleString("en-US")} possible nodes which exceeds the maximum limit of ${MAX_NODE_LIMIT.toLocaleString("en-US")}.`,
      path: [],
    });
  }
  return { requests, cost: pointsForRequests(requests), nodeCount, connections: ctx.connections, errors };
}
