/**
 * analyzeGraphQL with bounded memos: agents send the same few dozen query texts all day (gh's
 * queries are constants) with the same few variables, so each text is parsed and printed once,
 * and each (text, variables, operation) is analysed once; a cache hit then costs no GraphQL work.
 * Bounded by count and by bytes of query text (texts over 64 KiB are never memoised), least
 * recently used first, so a client sending endless distinct queries cannot grow the broker.
 */
import type { DocumentNode, GraphQLSchema } from "graphql";
import { parse, print } from "graphql";
import { CACHE_DEFAULTS } from "./cache-settings.js";
import {
  type AnalysisFailure,
  analyzeGraphQL,
  type GraphQLAnalysis,
  stableStringify,
} from "./core/graphql-analysis.js";

export interface GraphQLAnalyzerOptions {
  readonly schema: GraphQLSchema;
  /** Query texts kept parsed. @defaultValue 1000 */
  readonly maxDocuments?: number;
  /** (text, variables) analyses kept. @defaultValue 5000 */
  readonly maxAnalyses?: number;
}

type Parsed =
  | { readonly id: number; readonly document: DocumentNode; readonly printed: string }
  | { readonly error: string };

const MAX_MEMO_QUERY_BYTES = 64 * 1024;
const MAX_MEMO_TOTAL_BYTES = 32 * 1024 * 1024;

function remember<K, V>(map: Map<K, V>, key: K, value: V, max: number): V {
  if (map.size >= max) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
  map.set(key, value);
  return value;
}

export class GraphQLAnalyzer {
  readonly #schema: GraphQLSchema;
  readonly #maxDocuments: number;
  readonly #maxAnalyses: number;
  readonly #documents = new Map<string, Parsed>();
  readonly #analyses = new Map<string, GraphQLAnalysis | AnalysisFailure>();
  #documentBytes = 0;
  #nextId = 1;

  constructor(options: GraphQLAnalyzerOptions) {
    this.#schema = options.schema;
    this.#maxDocuments = options.maxDocuments ?? CACHE_DEFAULTS.analyzerMaxDocuments;
    this.#maxAnalyses = options.maxAnalyses ?? CACHE_DEFAULTS.analyzerMaxAnalyses;
  }

  get schema(): GraphQLSchema {
    return this.#schema;
  }

  analyze(
    query: string,
    variables: Readonly<Record<string, unknown>>,
    operationName?: string,
  ): GraphQLAnalysis | AnalysisFailure {
    const parsed = this.#parse(query);
    if ("error" in parsed) return { error: "syntax", message: parsed.error };
    // Everything below walks the variables recursively; absurd nesting would overflow the stack.
    if (nestingDepth(variables, MAX_VARIABLE_DEPTH) > MAX_VARIABLE_DEPTH) {
      return { error: "operation", message: `variables nest deeper than ${MAX_VARIABLE_DEPTH} levels` };
    }
    const variablesKey = stableStringify(variables);
    const key = `${parsed.id}\u0000${operationName ?? ""}\u0000${variablesKey}`;
    const known = this.#analyses.get(key);
    if (known) {
      this.#analyses.delete(key);
      this.#analyses.set(key, known);
      return known;
    }
    const analysis = analyzeGraphQL({
      schema: this.#schema,
      query,
      variables,
      operationName,
      document: parsed.document,
      printed: parsed.printed,
    });
    if (parsed.id < 0 || variablesKey.length > 16 * 1024) return analysis;
    return remember(this.#analyses, key, analysis, this.#maxAnalyses);
  }

  #parse(query: string): Parsed {
    const known = this.#documents.get(query);
    if (known) return known;
    let parsed: Parsed;
    try {
      const document = parse(query, { maxTokens: 50_000 });
      // A negative id marks a text too large to memoise: its analyses are not kept either.
      parsed = {
        id: query.length > MAX_MEMO_QUERY_BYTES ? -this.#nextId++ : this.#nextId++,
        document,
        printed: print(document),
      };
    } catch (error) {
      parsed = { error: (error as Error).message.slice(0, 500) };
    }
    if (query.length > MAX_MEMO_QUERY_BYTES) return parsed;
    while (this.#documentBytes + query.length > MAX_MEMO_TOTAL_BYTES && this.#documents.size > 0) {
      const oldest = this.#documents.keys().next().value as string;
      this.#documents.delete(oldest);
      this.#documentBytes -= oldest.length;
    }
    this.#documentBytes += query.length;
    if (this.#documents.size >= this.#maxDocuments) {
      const oldest = this.#documents.keys().next().value as string;
      this.#documents.delete(oldest);
      this.#documentBytes -= oldest.length;
    }
    this.#documents.set(query, parsed);
    return parsed;
  }
}

/** No GitHub input type nests anywhere near this deep. */
const MAX_VARIABLE_DEPTH = 64;

/** Depth of nested arrays and objects, counted without recursion and only up to `limit` + 1. */
function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== "object") continue;
    if (depth + 1 > deepest) deepest = depth + 1;
    if (deepest > limit) return deepest;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return deepest;
}
