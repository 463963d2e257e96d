/**
 * The executor's generic parts. Views are plain objects keyed by GitHub field names: a property
 * is returned as is, a function is called with the field's arguments. A field no view models
 * gets its type's neutral value (null, false, 0, "", [], the first enum value, or an empty object
 * whose own fields fall back the same way), so every query valid against GitHub's schema runs.
 * Abstract types resolve through each view's `__typename`.
 */
import {
  type GraphQLFieldResolver,
  type GraphQLOutputType,
  type GraphQLSchema,
  type GraphQLTypeResolver,
  isAbstractType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from "graphql";
import type { GqlContext } from "./context.js";

function fallbackFor(type: GraphQLOutputType, schema: GraphQLSchema): unknown {
  if (!isNonNullType(type)) return null;
  const inner = type.ofType;
  if (isListType(inner)) return [];
  if (isScalarType(inner)) {
    switch (inner.name) {
      case "Boolean":
        return false;
      case "Int":
      case "Float":
        return 0;
      case "DateTime":
        return "1970-01-01T00:00:00Z";
      default:
        return "";
    }
  }
  if (isEnumType(inner)) return inner.getValues()[0]?.value ?? null;
  if (isObjectType(inner)) return { __typename: inner.name };
  if (isAbstractType(inner)) return { __typename: schema.getPossibleTypes(inner)[0]?.name };
  return null;
}

export const fieldResolver: GraphQLFieldResolver<unknown, GqlContext> = (source, args, ctx, info) => {
  if (source === null || typeof source !== "object") return null;
  const value = (source as Record<string, unknown>)[info.fieldName];
  if (typeof value === "function")
    return (value as (a: unknown, c: GqlContext) => unknown).call(source, args, ctx);
  if (value !== undefined) return value;
  return fallbackFor(info.returnType, info.schema);
};

export const typeResolver: GraphQLTypeResolver<unknown, GqlContext> = (value) =>
  value !== null && typeof value === "object"
    ? ((value as { __typename?: string }).__typename ?? undefined)
    : undefined;
