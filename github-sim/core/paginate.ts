/**
 * Relay-style pagination over an ordered list, the way GitHub's connections behave: `after` and
 * `before` narrow the range, then `first` takes from its start or `last` from its end. Cursors
 * are opaque (base64 of a versioned offset, shaped like GitHub's `Y3Vyc29yOnYyOpH…`); a cursor
 * this simulator did not issue is refused with GitHub's message. Pure.
 */
import { WorldError } from "./world-error.js";

const PREFIX = "cursor:v2:";

export function encodeCursor(offset: number): string {
  return Buffer.from(`${PREFIX}${offset}`).toString("base64");
}

export function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, "base64").toString("utf8");
  const offset = text.startsWith(PREFIX) ? Number(text.slice(PREFIX.length)) : Number.NaN;
  if (!Number.isInteger(offset) || offset < 0) {
    throw new WorldError("INVALID", `\`${cursor}\` does not appear to be a valid cursor.`);
  }
  return offset;
}

export interface PageArgs {
  readonly first?: number | null | undefined;
  readonly last?: number | null | undefined;
  readonly after?: string | null | undefined;
  readonly before?: string | null | undefined;
}

export interface Page<T> {
  readonly items: readonly T[];
  /** Offset of items[0] in the full list. */
  readonly start: number;
  readonly hasNextPage: boolean;
  readonly hasPreviousPage: boolean;
}

export function paginate<T>(all: readonly T[], args: PageArgs): Page<T> {
  let start = 0;
  let end = all.length;
  if (args.after) start = Math.min(end, decodeCursor(args.after) + 1);
  if (args.before) end = Math.max(start, Math.min(end, decodeCursor(args.before)));
  if (typeof args.first === "number") end = Math.min(end, start + Math.max(0, args.first));
  if (typeof args.last === "number") start = Math.max(start, end - Math.max(0, args.last));
  return {
    items: all.slice(start, end),
    start,
    hasNextPage: end < all.length,
    hasPreviousPage: start > 0,
  };
}
