/**
 * Adds `aobRateLimit: rateLimit { cost remaining resetAt limit used nodeCount }` to ONE query the
 * broker forwards unmerged, and takes it out of the answer, so the broker learns the real cost of
 * every query without the caller seeing a difference.
 *
 * The selection is inserted just before the closing brace of the chosen operation's selection
 * set: everything before it keeps its position, and positions after it on that line move back by
 * the inserted length when errors are mapped (location-map.ts). The field has no connection, so it
 * adds no requests and no nodes. Not injected (the query is forwarded untouched) when the text does
 * not parse, the operation to run is not a query or cannot be chosen, or the reserved alias already
 * occurs in the text.
 */
import { type DocumentNode, Kind, type OperationDefinitionNode, parse } from "graphql";
import {
  isJsonObject,
  type JsonObject,
  mapErrorLocations,
  omitMember,
  type RateLimitData,
  readRateLimit,
} from "./graphql-response.js";
import { type LocationMap, lineStarts, locationToOffset } from "./location-map.js";
import { RATE_LIMIT_ALIAS, RATE_LIMIT_SELECTION } from "./merge-queries.js";
import { MergedTextBuilder } from "./merged-text-builder.js";

export interface RateLimitInjection {
  /** The query to forward. */
  readonly query: string;
  readonly alias: string;
  /** Offset in `query` where the inserted text starts, and its length. */
  readonly insertedAt: number;
  readonly insertedLength: number;
  readonly locations: LocationMap;
}

export interface InjectRateLimitOptions {
  readonly operationName?: string | null | undefined;
  /** @defaultValue RATE_LIMIT_ALIAS */
  readonly alias?: string;
  /** The request's document, parsed once at classification; used when it was parsed from `query`. */
  readonly document?: DocumentNode | undefined;
}

function chosenQuery(
  query: string,
  operationName: string | undefined,
  document: DocumentNode | undefined,
): OperationDefinitionNode | undefined {
  let operations: OperationDefinitionNode[];
  try {
    const parsed = document && document.loc?.source.body === query ? document : parse(query);
    operations = parsed.definitions.filter(
      (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
    );
  } catch {
    return undefined;
  }
  const operation = operationName
    ? operations.find((o) => o.name?.value === operationName)
    : operations.length === 1
      ? operations[0]
      : undefined;
  return operation?.operation === "query" ? operation : undefined;
}

export function injectRateLimit(
  query: string,
  options: InjectRateLimitOptions = {},
): RateLimitInjection | undefined {
  const alias = options.alias ?? RATE_LIMIT_ALIAS;
  if (query.includes(alias)) return undefined;
  const operation = chosenQuery(query, options.operationName ?? undefined, options.document);
  if (!operation?.selectionSet.loc) return undefined;
  const insertedAt = operation.selectionSet.loc.end - 1;
  // The leading space keeps the alias from gluing onto a preceding name token.
  const text = ` ${alias}: ${RATE_LIMIT_SELECTION} `;
  const builder = new MergedTextBuilder();
  builder.appendSlice({
    source: query,
    start: 0,
    end: query.length,
    insertions: [{ offset: insertedAt, text }],
    owners: [{ member: 0, originStart: 0 }],
  });
  const built = builder.build([query]);
  return { query: built.text, alias, insertedAt, insertedLength: text.length, locations: built.maps[0]! };
}

export interface StrippedAnswer {
  /** The answer as the caller would have had it without the injection. */
  readonly body: unknown;
  readonly rateLimit: RateLimitData | undefined;
  /**
   * True when GitHub refused the query because of the injected text itself (an error located in
   * it): the caller's answer is not derivable, so the query must be resent without injection.
   */
  readonly injectionRefused: boolean;
}

export function stripRateLimit(injection: RateLimitInjection, body: unknown): StrippedAnswer {
  if (!isJsonObject(body)) return { body, rateLimit: undefined, injectionRefused: false };
  const starts = lineStarts(injection.query);
  const insideInjection = (error: JsonObject) =>
    Array.isArray(error.locations) &&
    error.locations.some((location) => {
      if (
        !isJsonObject(location) ||
        typeof location.line !== "number" ||
        typeof location.column !== "number"
      ) {
        return false;
      }
      const offset = locationToOffset(starts, { line: location.line, column: location.column });
      return (
        offset !== undefined &&
        offset >= injection.insertedAt &&
        offset < injection.insertedAt + injection.insertedLength
      );
    });

  let rateLimit: RateLimitData | undefined;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === "data" && isJsonObject(value) && injection.alias in value) {
      rateLimit = readRateLimit(value[injection.alias]);
      out.data = omitMember(value, injection.alias);
    } else if (key === "errors" && Array.isArray(value)) {
      const errors: unknown[] = [];
      for (const error of value) {
        if (!isJsonObject(error)) {
          errors.push(error);
          continue;
        }
        if (Array.isArray(error.path) && error.path[0] === injection.alias) continue;
        if (insideInjection(error)) return { body, rateLimit: undefined, injectionRefused: true };
        errors.push(mapErrorLocations(error, injection.locations) ?? error);
      }
      if (errors.length > 0) out.errors = errors;
    } else out[key] = value;
  }
  return { body: out, rateLimit, injectionRefused: false };
}
