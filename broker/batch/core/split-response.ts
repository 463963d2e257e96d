/**
 * Splits GitHub's answer to a merged query into the answer each caller would have had alone:
 * root keys lose their `b<i>_` prefix (keeping the caller's order), errors go to the caller named
 * by the first element of their `path` (un-aliased) with `locations` mapped back to the caller's
 * text, and the injected `rateLimit` is taken out.
 *
 * When the answer cannot be attributed with certainty, the affected callers are told to retry
 * alone instead of receiving a guess:
 * - no `data` (GitHub refused the merged document: parse, validation, node limit, timeout),
 * - `data: null` (a non-null root field of one caller failed and nulled everyone's data),
 * - an error without a path, or with a path that names no caller,
 * - a location that does not fall in the caller's own text.
 */
import {
  isJsonObject,
  type JsonObject,
  mapErrorLocations,
  type RateLimitData,
  readRateLimit,
  replaceMember,
} from "./graphql-response.js";
import type { MergedQuery } from "./merge-queries.js";

export const RETRY_REASONS = {
  "malformed-response": "the merged answer is not a GraphQL response",
  "no-data": "GitHub refused the merged query",
  "data-null": "a non-null root field failed and nulled the merged data",
  "unattributable-error": "an error of the merged query names no caller",
  "unknown-key": "the merged answer has a root key no caller asked for",
  "unmappable-location": "an error location is outside the caller's text",
} as const;
export type RetryReason = keyof typeof RETRY_REASONS;

export type MemberSplit =
  | { readonly kind: "answer"; readonly id: string; readonly body: JsonObject }
  | { readonly kind: "retry-alone"; readonly id: string; readonly reason: RetryReason };

export interface SplitResult {
  readonly members: readonly MemberSplit[];
  /** The injected rateLimit answer, when the merged query carried one and it came back. */
  readonly rateLimit: RateLimitData | undefined;
}

const PREFIXED_KEY = /^b(\d+)_/;

function ownerOf(key: string, memberCount: number): { index: number; key: string } | undefined {
  const match = PREFIXED_KEY.exec(key);
  if (!match?.[1]) return undefined;
  const index = Number(match[1]);
  if (index >= memberCount || String(index) !== match[1]) return undefined;
  return { index, key: key.slice(match[0].length) };
}

interface MemberParts {
  readonly data: JsonObject;
  readonly errors: JsonObject[];
  retry?: RetryReason;
}

export function splitMergedResponse(merged: MergedQuery, body: unknown): SplitResult {
  const retryAll = (reason: RetryReason): SplitResult => ({
    members: merged.members.map((m) => ({ kind: "retry-alone", id: m.id, reason })),
    rateLimit: undefined,
  });
  if (!isJsonObject(body)) return retryAll("malformed-response");
  if (!("data" in body) || body.data === undefined) return retryAll("no-data");
  if (body.data === null) return retryAll("data-null");
  if (!isJsonObject(body.data)) return retryAll("malformed-response");
  if (body.errors !== undefined && !Array.isArray(body.errors)) return retryAll("malformed-response");

  const parts: MemberParts[] = merged.members.map(() => ({ data: {}, errors: [] }));
  let rateLimit: RateLimitData | undefined;
  for (const [key, value] of Object.entries(body.data)) {
    if (key === merged.rateLimitAlias) {
      rateLimit = readRateLimit(value);
      continue;
    }
    const owner = ownerOf(key, parts.length);
    const part = owner && parts[owner.index];
    if (!owner || !part) return retryAll("unknown-key");
    part.data[owner.key] = value;
  }

  for (const error of (body.errors as unknown[] | undefined) ?? []) {
    if (!isJsonObject(error)) return retryAll("malformed-response");
    const path = error.path;
    const head = Array.isArray(path) ? path[0] : undefined;
    if (typeof head !== "string") return retryAll("unattributable-error");
    // An error on the broker's own rateLimit selection is the broker's business, not a caller's.
    if (head === merged.rateLimitAlias) continue;
    const owner = ownerOf(head, parts.length);
    const part = owner && parts[owner.index];
    const member = owner && merged.members[owner.index];
    if (!owner || !part || !member) return retryAll("unattributable-error");
    const located = mapErrorLocations(error, member.locations);
    if (!located) {
      part.retry = "unmappable-location";
      continue;
    }
    part.errors.push(replaceMember(located, "path", [owner.key, ...(path as unknown[]).slice(1)]));
  }

  const members = merged.members.map((member, index): MemberSplit => {
    const part = parts[index] as MemberParts;
    if (part.retry) return { kind: "retry-alone", id: member.id, reason: part.retry };
    const answer: JsonObject = {};
    for (const [key, value] of Object.entries(body)) {
      if (key === "data") answer.data = part.data;
      else if (key === "errors") {
        if (part.errors.length > 0) answer.errors = part.errors;
      } else answer[key] = value;
    }
    return { kind: "answer", id: member.id, body: answer };
  });
  return { members, rateLimit };
}
