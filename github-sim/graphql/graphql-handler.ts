/**
 * POST /graphql, as GitHub answers it: unreadable JSON → 400; parse and validation errors →
 * 200 with `errors` (graphql-ruby phrasing); pagination errors (missing/excessive first/last,
 * over 500,000 nodes) → 200 with typed errors before anything runs; then the cost is charged
 * to the graphql bucket (spent → 200 with errors[{type: "RATE_LIMITED"}]) and the operation runs
 * over the world. `rateLimit(dryRun: true)` reports without charging.
 *
 * Invariant: nothing is charged for a request that did not run.
 */
import { execute, getVariableValues, Kind, type OperationDefinitionNode } from "graphql";
import { effectiveVariables, graphqlRateLimitedBody } from "../../github/index.js";
import { JSON_TYPE, jsonResponse } from "../http/respond.js";
import type { GraphQLRequestInfo, SimRequest, SimResponse } from "../http/types.js";
import type { SimState } from "../sim-state.js";
import { type GqlContext, isoTime } from "./context.js";
import { fieldResolver, typeResolver } from "./field-resolution.js";
import { executionErrorToGitHub } from "./github-errors.js";
import { mutationRoot } from "./root-mutation.js";
import { queryRoot } from "./root-query.js";
import { VIEW_LINKS } from "./views/view-links.js";

const GRAPHQL = { resource: "graphql" as const };

function selectOperation(info: GraphQLRequestInfo): OperationDefinitionNode | string {
  const operations = info.prepared?.operations ?? [];
  if (info.operationName) {
    return (
      operations.find((o) => o.name?.value === info.operationName) ??
      `No operation named "${info.operationName}"`
    );
  }
  if (operations.length === 1) return operations[0] as OperationDefinitionNode;
  return operations.length === 0 ? "No operations in query document" : "An operation name is required";
}

function isDryRun(operation: OperationDefinitionNode, variables: Readonly<Record<string, unknown>>): boolean {
  return operation.selectionSet.selections.some((s) => {
    if (s.kind !== Kind.FIELD || s.name.value !== "rateLimit") return false;
    const arg = s.arguments?.find((a) => a.name.value === "dryRun");
    if (!arg) return false;
    if (arg.value.kind === Kind.BOOLEAN) return arg.value.value;
    return arg.value.kind === Kind.VARIABLE && variables[arg.value.name.value] === true;
  });
}

export async function handleGraphQL(state: SimState, request: SimRequest): Promise<SimResponse> {
  const info = request.classification?.graphql;
  if (!info || info.bodyError) {
    return jsonResponse(
      400,
      {
        message: info?.bodyError ?? "Problems parsing JSON",
        documentation_url: "https://docs.github.com/graphql",
      },
      GRAPHQL,
    );
  }
  const prepared = info.prepared;
  if (!prepared?.document || prepared.errors.length > 0) {
    return jsonResponse(200, { errors: prepared?.errors ?? [] }, { ...GRAPHQL, outcome: "client_error" });
  }
  const operation = selectOperation(info);
  if (typeof operation === "string") {
    return jsonResponse(200, { errors: [{ message: operation }] }, { ...GRAPHQL, outcome: "client_error" });
  }
  const coerced = getVariableValues(state.schema, operation.variableDefinitions ?? [], info.variables, {
    maxErrors: 10,
  });
  if (coerced.errors) {
    const errors = coerced.errors.map((e) => executionErrorToGitHub(e, operation));
    return jsonResponse(200, { errors }, { ...GRAPHQL, outcome: "client_error" });
  }
  const variables = effectiveVariables(operation, info.variables);
  const cost = state.documents.cost(info.query, prepared.document, info.operationName, variables);
  if (cost.errors.length > 0) {
    const errors = cost.errors.map((e) => ({
      type: e.type,
      path: e.path,
      ...(e.locations ? { locations: e.locations } : {}),
      message: e.message,
    }));
    return jsonResponse(200, { errors }, { ...GRAPHQL, outcome: "client_error" });
  }

  const now = state.now();
  const dryRun = isDryRun(operation, variables);
  const charge = dryRun
    ? { ok: true, snapshot: state.primary.snapshot("graphql", now) }
    : state.primary.charge("graphql", cost.cost, now);
  if (!charge.ok) {
    return jsonResponse(200, graphqlRateLimitedBody(state.viewerId()), {
      ...GRAPHQL,
      rateLimit: charge.snapshot,
      outcome: "rate_limited",
    });
  }
  const ctx: GqlContext = {
    world: state.world,
    iso: state.iso,
    webBase: state.webBase,
    rateLimit: {
      cost: cost.cost,
      nodeCount: cost.nodeCount,
      limit: charge.snapshot.limit,
      remaining: charge.snapshot.remaining,
      used: charge.snapshot.used,
      resetAt: isoTime(charge.snapshot.reset * 1000),
    },
    links: VIEW_LINKS,
  };
  const cacheable =
    state.results !== undefined && operation.operation === "query" && !info.query.includes("rateLimit");
  const cacheKey = cacheable
    ? `${info.operationName ?? ""}\u0000${JSON.stringify(info.variables)}\u0000${info.query}`
    : "";
  const version = state.world.version;
  const cached = cacheable ? state.results?.get(cacheKey, version) : undefined;
  if (cached !== undefined) {
    return {
      status: 200,
      headers: { "content-type": JSON_TYPE },
      body: cached,
      resource: "graphql",
      rateLimit: charge.snapshot,
      graphqlPoints: dryRun ? 0 : cost.cost,
      outcome: "ok",
    };
  }
  const result = await execute({
    schema: state.schema,
    document: prepared.document,
    rootValue: operation.operation === "mutation" ? mutationRoot(ctx) : queryRoot(ctx),
    contextValue: ctx,
    variableValues: info.variables,
    operationName: info.operationName,
    fieldResolver,
    typeResolver,
  });
  const errors = result.errors?.map((e) => executionErrorToGitHub(e, operation));
  const body =
    result.data === undefined
      ? { errors }
      : errors && errors.length > 0
        ? { data: result.data, errors }
        : { data: result.data };
  const text = JSON.stringify(body);
  if (cacheable) state.results?.set(cacheKey, version, text);
  return {
    status: 200,
    headers: { "content-type": JSON_TYPE },
    body: text,
    resource: "graphql",
    rateLimit: charge.snapshot,
    graphqlPoints: dryRun ? 0 : cost.cost,
    outcome: "ok",
  };
}
