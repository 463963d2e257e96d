/**
 * Parsed and validated GraphQL documents by query text, and their costs by (text, variables):
 * gh sends the same few dozen query texts over and over, so each is parsed and validated once.
 * Bounded LRU maps keep memory flat under arbitrary (fuzzed) input.
 */
import {
  type DocumentNode,
  GraphQLError,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  parse,
} from "graphql";
import { computeQueryCost, type QueryCost, validateGitHubDocument } from "../../github/index.js";
import { type GitHubGraphQLError, parseErrorToGitHub, validationErrorsToGitHub } from "./github-errors.js";

export interface PreparedDocument {
  readonly document: DocumentNode | undefined;
  /** Parse or validation errors in GitHub's shape; empty when the document is runnable. */
  readonly errors: readonly GitHubGraphQLError[];
  readonly operations: readonly OperationDefinitionNode[];
}

/** Largest query text accepted, in characters (GitHub refuses very large documents too). */
export const MAX_QUERY_LENGTH = 200_000;

class Lru<V> {
  private readonly map = new Map<string, V>();
  private readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
}

export class DocumentCache {
  private readonly schema: GraphQLSchema;
  private readonly documents: Lru<PreparedDocument>;
  private readonly costs: Lru<QueryCost>;

  constructor(schema: GraphQLSchema, maxEntries = 1000) {
    this.schema = schema;
    this.documents = new Lru(maxEntries);
    this.costs = new Lru(maxEntries * 4);
  }

  prepare(query: string): PreparedDocument {
    const cached = this.documents.get(query);
    if (cached) return cached;
    const prepared = this.compile(query);
    this.documents.set(query, prepared);
    return prepared;
  }

  private compile(query: string): PreparedDocument {
    if (query.length > MAX_QUERY_LENGTH) {
      return {
        document: undefined,
        operations: [],
        errors: [
          { message: `Query is too large (${query.length} characters; the limit is ${MAX_QUERY_LENGTH})` },
        ],
      };
    }
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: 50_000 });
    } catch (error) {
      if (!(error instanceof GraphQLError)) {
        // The parser recursed too deep (RangeError): GitHub refuses such documents too.
        return { document: undefined, operations: [], errors: [{ message: "Query is too deeply nested" }] };
      }
      return { document: undefined, operations: [], errors: [parseErrorToGitHub(error)] };
    }
    const operations = document.definitions.filter(
      (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
    );
    const validation = validateGitHubDocument(this.schema, document);
    return {
      document,
      operations,
      errors: validation.length > 0 ? validationErrorsToGitHub(document, validation) : [],
    };
  }

  cost(
    query: string,
    document: DocumentNode,
    operationName: string | undefined,
    variables: Readonly<Record<string, unknown>>,
  ): QueryCost {
    const key = `${operationName ?? ""}\u0000${JSON.stringify(variables)}\u0000${query}`;
    const cached = this.costs.get(key);
    if (cached) return cached;
    const cost = computeQueryCost({ schema: this.schema, document, operationName, variables });
    this.costs.set(key, cost);
    return cost;
  }
}
