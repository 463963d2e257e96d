/**
 * Seeded random inputs for the batching property tests: a small PRNG (mulberry32, so a failing
 * seed reproduces) and variables generated from an operation's own variable definitions, biased
 * towards the values that exercise the interesting paths (missing PRs, unknown node ids, a search
 * that fails at the root, omitted optionals that fall back to defaults, explicit nulls).
 */
import {
  type GraphQLInputType,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type OperationDefinitionNode,
  typeFromAST,
} from "graphql";

export type Rng = () => number;

export function seededRng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  const item = items[Math.floor(rng() * items.length)];
  if (item === undefined) throw new RangeError("pick from an empty list");
  return item;
}

function int(rng: Rng, low: number, high: number): number {
  return low + Math.floor(rng() * (high - low + 1));
}

function scalar(name: string, variable: string, rng: Rng): unknown {
  if (name === "Int") {
    if (/limit|per_page|first|last/i.test(variable)) return int(rng, 1, 100);
    if (/number/i.test(variable)) return rng() < 0.2 ? int(rng, 900, 999) : int(rng, 1, 899);
    return int(rng, 1, 500);
  }
  if (name === "Boolean") return rng() < 0.5;
  if (name === "ID") return rng() < 0.15 ? `MISSING_${int(rng, 1, 99)}` : `PR_kwDO${int(rng, 100, 999)}`;
  if (/query|^q$/i.test(variable)) return `repo:o/r is:pr${rng() < 0.1 ? " boom" : ""} ${int(rng, 1, 9)}`;
  if (/cursor/i.test(variable)) return `Y3Vyc29yOnYyOp${int(rng, 10, 99)}`;
  if (/owner/i.test(variable)) return pick(rng, ["o", "acme", "up"]);
  if (/repo|name/i.test(variable)) return pick(rng, ["r", "widgets", "gadgets"]);
  return pick(rng, ["feature", "main", "fix-12", "é-ünïcode"]);
}

function randomValue(type: GraphQLInputType, variable: string, rng: Rng, captured: unknown): unknown {
  if (isNonNullType(type)) return randomValue(type.ofType, variable, rng, captured);
  if (isListType(type)) {
    const n = int(rng, 1, 2);
    return Array.from({ length: n }, () => randomValue(type.ofType, variable, rng, undefined));
  }
  if (isEnumType(type)) return pick(rng, type.getValues()).name;
  if (isScalarType(type)) return scalar(type.name, variable, rng);
  if (isInputObjectType(type)) return captured ?? {};
  return captured;
}

/** Variables for `operation`: required ones always, optional ones sometimes omitted or null. */
export function randomVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  rng: Rng,
  captured: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type as never) as GraphQLInputType | undefined;
    if (!type) continue;
    // A page size gh always sends: without it GitHub refuses the query (that path is unit-tested).
    const pageSize = /limit|per_page/i.test(name);
    const required =
      (pageSize && !definition.defaultValue) || (isNonNullType(type) && !definition.defaultValue);
    if (!required) {
      const roll = rng();
      if (roll < 0.2) continue;
      if (roll < 0.3 && !isNonNullType(type) && !pageSize) {
        out[name] = null;
        continue;
      }
    }
    out[name] = randomValue(type, name, rng, captured[name]);
  }
  return out;
}
