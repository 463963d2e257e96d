/**
 * analyzeGraphQL with a bounded memo: agents send the same few dozen query texts all day (gh's
 * queries are constants), so parsing and walking each text once and reusing the document saves the
 * dominant CPU cost of a cache hit. Keyed by query text; variables are applied per request.
 */
import type { DocumentNode, GraphQLSchema } from "graphql";
import { parse } from "graphql";
import { type AnalysisFailure, analyzeGraphQL, type GraphQLAnalysis } from "./core/graphql-analysis.js";

export interface GraphQLAnalyzerOptions {
  readonly schema: GraphQLSchema;
  /** @defaultValue 1000 */
  readonly maxDocuments?: number;
}

export class GraphQLAnalyzer {
  readonly #schema: GraphQLSchema;
  readonly #max: number;
  readonly #documents = new Map<string, DocumentNode | { error: string }>();

  constructor(options: GraphQLAnalyzerOptions) {
    this.#schema = options.schema;
    this.#max = options.maxDocuments ?? 1000;
  }

  get schema(): GraphQLSchema {
    return this.#schema;
  }

  analyze(
    query: string,
    variables: Readonly<Record<string, unknown>>,
    operationName?: string,
  ): GraphQLAnalysis | AnalysisFailure {
    let document = this.#documents.get(query);
    if (document === undefined) {
      try {
        document = parse(query, { maxTokens: 50_000 });
      } catch (error) {
        document = { error: (error as Error).message };
      }
      if (this.#documents.size >= this.#max) {
        const oldest = this.#documents.keys().next().value;
        if (oldest !== undefined) this.#documents.delete(oldest);
      }
      this.#documents.set(query, document);
    }
    if ("error" in document) return { error: "syntax", message: document.error };
    return analyzeGraphQL({ schema: this.#schema, query, variables, operationName, document });
  }
}
