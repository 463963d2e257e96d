/**
 * Classifies a GitHub-facing request once, for every later layer: GraphQL (body read as JSON,
 * document prepared through the cache, operation kind and name) or REST (route template and
 * parameters). The classification feeds the secondary limits (a query or GET is 1 point, a
 * mutation or write 5), the stats (`byOperation`) and the handlers, and rides back on the answer.
 */
import { Kind, type OperationDefinitionNode } from "graphql";
import { CONTENT_CREATING_MUTATIONS } from "../../graphql/root-mutation.js";
import { matchRestRoute } from "../../rest/route-table.js";
import type { SimState } from "../../sim-state.js";
import type { Classification, GraphQLRequestInfo, SimLayer, SimRequest } from "../types.js";

const MISSING_QUERY = "A query attribute must be specified and must be a string.";

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

const MAX_VARIABLE_DEPTH = 64;

/** True when arrays/objects nest deeper than `limit`; iterative, so any depth is safe to ask about. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== "object") continue;
    if (depth >= limit) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

function readGraphQL(state: SimState, body: Buffer): GraphQLRequestInfo {
  const blank = {
    query: "",
    variables: {},
    operationName: undefined,
    prepared: undefined,
    kind: undefined,
    label: "anonymous",
    createsContent: false,
  };
  let payload: unknown;
  try {
    payload = JSON.parse(body.toString("utf8"));
  } catch {
    return { ...blank, bodyError: "Problems parsing JSON" };
  }
  if (!isRecord(payload)) return { ...blank, bodyError: "Problems parsing JSON" };
  if (typeof payload.query !== "string") {
    return {
      ...blank,
      prepared: { document: undefined, operations: [], errors: [{ message: MISSING_QUERY }] },
    };
  }
  let variables: unknown = payload.variables ?? {};
  if (typeof variables === "string") {
    try {
      variables = variables.trim() === "" ? {} : JSON.parse(variables);
    } catch {
      variables = undefined;
    }
  }
  const query = payload.query;
  const operationName =
    typeof payload.operationName === "string" && payload.operationName ? payload.operationName : undefined;
  if (!isRecord(variables)) {
    return {
      ...blank,
      query,
      operationName,
      prepared: { document: undefined, operations: [], errors: [{ message: "Variables are invalid JSON." }] },
    };
  }
  // Costing and execution walk the variables recursively: absurd nesting is refused here.
  if (nestedDeeperThan(variables, MAX_VARIABLE_DEPTH)) {
    return {
      ...blank,
      query,
      operationName,
      prepared: {
        document: undefined,
        operations: [],
        errors: [{ message: "Variables are nested too deeply." }],
      },
    };
  }
  const prepared = state.documents.prepare(query);
  const operation: OperationDefinitionNode | undefined = operationName
    ? prepared.operations.find((o) => o.name?.value === operationName)
    : prepared.operations.length === 1
      ? prepared.operations[0]
      : undefined;
  const createsContent =
    operation?.operation === "mutation" &&
    operation.selectionSet.selections.some(
      (s) => s.kind === Kind.FIELD && CONTENT_CREATING_MUTATIONS.has(s.name.value),
    );
  return {
    query,
    variables,
    operationName,
    prepared,
    kind: operation?.operation,
    label: operation?.name?.value ?? operationName ?? "anonymous",
    createsContent,
  };
}

export function classify(state: SimState, request: SimRequest): Classification {
  if (request.path === "/graphql" && request.method === "POST") {
    const graphql = readGraphQL(state, request.body);
    return {
      kind: "graphql",
      operation: graphql.label,
      secondaryPoints: graphql.kind === "mutation" ? 5 : 1,
      graphql,
    };
  }
  const route = matchRestRoute(request.method, request.path);
  const template = route?.template;
  const read = request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS";
  return {
    kind: "rest",
    operation: template ?? `${request.method} (unknown route)`,
    secondaryPoints: read ? 1 : 5,
    rest: { template, params: route?.params ?? {}, createsContent: route?.createsContent ?? false },
  };
}

export function classifyLayer(state: SimState): SimLayer {
  return (next) => async (request) => {
    const classification = classify(state, request);
    const response = await next({ ...request, classification });
    return { ...response, classification };
  };
}
