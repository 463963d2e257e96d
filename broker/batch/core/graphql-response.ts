/**
 * The few facts about GraphQL response bodies the batcher relies on, as GitHub sends them:
 * `{data, errors, extensions}`, where an error carries `message`, `path` (response keys from the
 * root, then list indexes), `locations` (`{line, column}` in the query text) and, at GitHub,
 * non-spec members such as `type: "NOT_FOUND"` that must pass through untouched.
 */
import { readRateLimitFields } from "../../../github/index.js";
import type { LocationMap, SourceLocation } from "./location-map.js";

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What `rateLimit { cost remaining resetAt limit used nodeCount }` answers. */
export interface RateLimitData {
  readonly cost: number;
  readonly remaining: number;
  readonly resetAt: string;
  readonly limit: number;
  readonly used: number;
  readonly nodeCount: number;
}

export function readRateLimit(value: unknown): RateLimitData | undefined {
  const fields = readRateLimitFields(value);
  const cost = fields?.cost;
  if (!fields || cost === undefined || !Number.isFinite(cost) || cost < 0) return undefined;
  return {
    cost,
    remaining: fields.remaining ?? Number.NaN,
    resetAt: fields.resetAt ?? "",
    limit: fields.limit ?? Number.NaN,
    used: fields.used ?? Number.NaN,
    nodeCount: fields.nodeCount ?? Number.NaN,
  };
}

function isLocation(value: unknown): value is SourceLocation {
  return isJsonObject(value) && typeof value.line === "number" && typeof value.column === "number";
}

/**
 * Rewrites an error's `locations` through `map`, keeping every other member and its order.
 * Returns undefined when a location does not belong to the caller's text.
 */
export function mapErrorLocations(error: JsonObject, map: LocationMap): JsonObject | undefined {
  if (!("locations" in error)) return error;
  const locations = error.locations;
  if (!Array.isArray(locations)) return undefined;
  const mapped: SourceLocation[] = [];
  for (const location of locations) {
    if (!isLocation(location)) return undefined;
    const back = map.mapLocation(location);
    if (!back) return undefined;
    mapped.push({ line: back.line, column: back.column });
  }
  return replaceMember(error, "locations", mapped);
}

/** A copy of `object` with `key` replaced in place (same key order). */
export function replaceMember(object: JsonObject, key: string, value: unknown): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(object)) out[k] = k === key ? value : v;
  return out;
}

/** A copy of `object` without `key` (same order for the rest). */
export function omitMember(object: JsonObject, key: string): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(object)) if (k !== key) out[k] = v;
  return out;
}
