/**
 * Why a query is sent on its own instead of in a merged batch. The rule is: anything whose merged
 * answer cannot be proven equal to its answer alone goes alone, and the reason is reported so the
 * broker can count and trace it.
 */
export const ALONE_REASONS = {
  /** The text is not a GraphQL document; GitHub's own parse error is what the caller must see. */
  "parse-error": "the document does not parse",
  /** The variables are not a JSON object. */
  "invalid-variables": "the variables are not an object",
  /** No operation, or an operationName that names none. */
  "no-operation": "no operation to run",
  /** Several operations and no operationName to choose one. */
  "ambiguous-operation": "several operations and no operationName",
  mutation: "mutations are never batched",
  subscription: "subscriptions are never batched",
  /** Directives on the operation or its variable definitions change the whole operation. */
  "operation-directives": "directives on the operation or its variables",
  /** `__schema`/`__type`: introspection is answered whole, not per field. */
  introspection: "introspection query",
  /** Its own rateLimit answer would report the merged query's cost. */
  "selects-rate-limit": "the query selects rateLimit",
  /** A fragment spread both at the root (needs aliasing) and below it (must not be aliased). */
  "root-fragment-reuse": "a fragment is used both at the root and nested",
  /** GitHub would refuse it; its error must not fail the others. */
  "validation-error": "the query fails validation",
  /** Missing or excessive pagination, or over the node limit alone. */
  "cost-error": "the query fails GitHub's cost rules",
  /** Variables that do not coerce to their declared types. */
  "variable-error": "the variables do not match their declared types",
  /** Alone it already exceeds the caps of a merged query. */
  "over-caps": "the query alone exceeds the merged-query caps",
  /** The group held only this member when it was flushed. */
  "no-partner": "no compatible query arrived before its deadline",
} as const;

export type AloneReason = keyof typeof ALONE_REASONS;
