/**
 * A GraphQL request's body as the pipeline carries it. On its own so that the classifier and the
 * request types (which hold the classification) do not import each other.
 */
export interface GraphQLPayload {
  readonly query: string;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly operationName?: string | undefined;
}
