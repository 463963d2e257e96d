/**
 * Executes GraphQL against GitHub's real schema with graphql-js and a deterministic world: every
 * value is derived from the chain of (field name, arguments) from the root, never from aliases or
 * variable names, so a query executed alone and the same query merged under `b<i>_` aliases with
 * renamed variables see identical values. Errors come from the arguments and the derived seeds:
 *
 * - `pullRequest(number: n)` with n ≥ 900: a NOT_FOUND error (GitHub's shape: `type`
 *   in extensions here, since graphql-js only carries extra members there); the field is null.
 * - `title` (non-null) fails for some seeds: null propagates to the nearest nullable parent.
 * - `search(query:)` whose query contains "boom": `search` is non-null at the root, so the whole
 *   `data` becomes null (the case that forces a merged batch's members to be retried alone).
 * - `node(id:)` with an id starting with "MISSING": NOT_FOUND, node is null.
 *
 * Lists are short (≤ 3) so a few hundred merged executions stay fast.
 */
import {
  type DocumentNode,
  execute,
  GraphQLError,
  type GraphQLFieldResolver,
  type GraphQLOutputType,
  type GraphQLSchema,
  type GraphQLTypeResolver,
  isEnumType,
  isListType,
  isNonNullType,
  isScalarType,
  parse,
} from "graphql";

interface Seeded {
  readonly seed: string;
}

function fnv(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${k}:${stable((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}

const PREFERRED_TYPES = ["PullRequest", "Issue", "CheckRun", "StatusContext", "User"];

function scalarValue(name: string, seed: string): unknown {
  const h = fnv(`${seed}:${name}`);
  switch (name) {
    case "Int":
      return h % 1000;
    case "Float":
      return (h % 10000) / 100;
    case "Boolean":
      return h % 2 === 0;
    case "ID":
      return `ID_${seed}`;
    case "DateTime":
      return new Date(1_700_000_000_000 + (h % 1_000_000) * 1000).toISOString();
    case "URI":
      return `https://github.localhost/${seed}`;
    default:
      return `${name}-${seed}`;
  }
}

function valueFor(
  type: GraphQLOutputType,
  seed: string,
  args: Record<string, unknown>,
  nonNull = false,
): unknown {
  if (isNonNullType(type)) return valueFor(type.ofType, seed, args, true);
  const h = fnv(seed);
  if (!nonNull && h % 13 === 0) return null;
  if (isListType(type)) {
    const page = typeof args.first === "number" ? args.first : typeof args.last === "number" ? args.last : 3;
    const length = h % (Math.min(page, 3) + 1);
    return Array.from({ length }, (_, i) => valueFor(type.ofType, `${seed}#${i}`, {}, false));
  }
  if (isScalarType(type)) return scalarValue(type.name, seed);
  if (isEnumType(type)) {
    const values = type.getValues();
    return values[h % values.length]?.value;
  }
  return { seed } satisfies Seeded;
}

const fieldResolver: GraphQLFieldResolver<unknown, unknown> = (source, args, context, info) => {
  const parentSeed = (source as Seeded | undefined)?.seed ?? "root";
  const seed = fnv(`${parentSeed}|${info.fieldName}(${stable(args)})`).toString(36);
  if (info.fieldName === "pullRequest" && typeof args.number === "number" && args.number >= 900) {
    throw new GraphQLError(`Could not resolve to a PullRequest with the number of ${args.number}.`, {
      extensions: { type: "NOT_FOUND" },
    });
  }
  if (info.fieldName === "node" && typeof args.id === "string" && args.id.startsWith("MISSING")) {
    throw new GraphQLError(`Could not resolve to a node with the global id of '${args.id}'`, {
      extensions: { type: "NOT_FOUND" },
    });
  }
  if (info.fieldName === "search" && typeof args.query === "string" && args.query.includes("boom")) {
    throw new Error("search exploded");
  }
  if (info.fieldName === "title" && fnv(parentSeed) % 29 === 0) throw new Error("title unavailable");
  // The broker's rateLimit probe always answers, as GitHub's does, with the cost the caller set.
  if (info.fieldName === "rateLimit") return { seed, ...(context as ExecutionWorld | undefined)?.rateLimit };
  if (source && typeof source === "object" && info.fieldName in source && info.fieldName !== "seed") {
    return (source as Record<string, unknown>)[info.fieldName];
  }
  return valueFor(info.returnType, seed, args);
};

const typeResolver: GraphQLTypeResolver<unknown, unknown> = (value, _context, info, abstractType) => {
  const seed = (value as Seeded).seed;
  const possible = info.schema.getPossibleTypes(abstractType);
  const preferred = possible.filter((t) => PREFERRED_TYPES.includes(t.name));
  const h = fnv(`${seed}:type`);
  const pool = preferred.length > 0 && h % 4 !== 0 ? preferred : possible;
  return pool[h % pool.length]?.name;
};

/** What the world answers for `rateLimit` fields (any member left out is derived). */
export interface ExecutionWorld {
  readonly rateLimit?: Partial<
    Record<"cost" | "remaining" | "limit" | "used" | "nodeCount" | "resetAt", unknown>
  >;
}

export interface DeterministicRequest {
  readonly query: string | DocumentNode;
  readonly variables?: unknown;
  readonly operationName?: string | null | undefined;
  readonly world?: ExecutionWorld | undefined;
}

/** Executes and returns the JSON a server would send (errors serialized by graphql-js). */
export async function executeDeterministic(
  schema: GraphQLSchema,
  request: DeterministicRequest,
): Promise<Record<string, unknown>> {
  const document = typeof request.query === "string" ? parse(request.query) : request.query;
  const result = await execute({
    schema,
    document,
    variableValues: (request.variables ?? {}) as Record<string, unknown>,
    operationName: request.operationName ?? undefined,
    rootValue: { seed: "root" } satisfies Seeded,
    contextValue: request.world,
    fieldResolver,
    typeResolver,
  });
  return JSON.parse(JSON.stringify(result)) as Record<string, unknown>;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/** JSON text with object keys sorted at every depth: "byte for byte after normalization". */
export function normalizeJson(value: unknown): string {
  return JSON.stringify(sortKeys(typeof value === "string" ? JSON.parse(value) : value));
}
