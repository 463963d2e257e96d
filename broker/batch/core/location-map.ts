/**
 * Maps positions in a rewritten (merged or injected) GraphQL document back to the caller's own
 * document text, so an error's `locations` read exactly as GitHub would report them for the query
 * alone.
 *
 * Positions follow graphql-js (and the GraphQL spec's SourceLocation): 1-based line and column,
 * lines ended by `\r\n`, `\n` or `\r`, columns counted in UTF-16 code units. A merged document is
 * made of copied slices of each caller's text plus synthetic text (headers, alias prefixes): each
 * copied slice is a `linear` segment (offset for offset), each synthetic insertion a `point`
 * segment that collapses onto the original token it was inserted before. That is the point a
 * GraphQL server reports for an aliased field (the start of the field node), so an error on
 * `b0_repository: repository` maps back to where `repository` starts in the caller's text.
 *
 * Invariant: segments are sorted by merged offset and never overlap.
 */

export interface SourceLocation {
  readonly line: number;
  readonly column: number;
}

export interface MapSegment {
  /** First merged offset covered. */
  readonly mergedStart: number;
  /** One past the last merged offset covered. */
  readonly mergedEnd: number;
  /** Offset in the original text that `mergedStart` maps to. */
  readonly originStart: number;
  /** A point segment maps every covered offset onto `originStart` (synthetic text). */
  readonly point: boolean;
}

const LINE_BREAK = /\r\n|[\n\r]/g;

/** Offsets at which each line starts (index 0 = line 1), by graphql-js's line rule. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (const match of text.matchAll(LINE_BREAK)) starts.push(match.index + match[0].length);
  return starts;
}

export function offsetToLocation(starts: readonly number[], offset: number): SourceLocation {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) low = mid;
    else high = mid - 1;
  }
  return { line: low + 1, column: offset - (starts[low] ?? 0) + 1 };
}

export function locationToOffset(starts: readonly number[], location: SourceLocation): number | undefined {
  const start = starts[location.line - 1];
  if (start === undefined || !Number.isInteger(location.column) || location.column < 1) return undefined;
  const offset = start + location.column - 1;
  const next = starts[location.line];
  // A column past the end of its line does not name a character of the text.
  if (next !== undefined && offset >= next) return undefined;
  return offset;
}

/** One caller's view of a rewritten document. */
export class LocationMap {
  readonly #segments: readonly MapSegment[];
  readonly #mergedStarts: readonly number[];
  readonly #originStarts: readonly number[];

  constructor(segments: readonly MapSegment[], mergedText: string, originText: string) {
    this.#segments = [...segments].sort((a, b) => a.mergedStart - b.mergedStart);
    this.#mergedStarts = lineStarts(mergedText);
    this.#originStarts = lineStarts(originText);
  }

  /** Maps a merged offset to an original offset, or undefined when it is not this caller's text. */
  mapOffset(mergedOffset: number): number | undefined {
    const segments = this.#segments;
    let low = 0;
    let high = segments.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const segment = segments[mid];
      if (!segment) return undefined;
      if (mergedOffset < segment.mergedStart) high = mid - 1;
      else if (mergedOffset >= segment.mergedEnd) low = mid + 1;
      else
        return segment.point ? segment.originStart : segment.originStart + mergedOffset - segment.mergedStart;
    }
    return undefined;
  }

  /** Maps a location in the rewritten text to the caller's text; undefined when it is not theirs. */
  mapLocation(location: SourceLocation): SourceLocation | undefined {
    const merged = locationToOffset(this.#mergedStarts, location);
    if (merged === undefined) return undefined;
    const origin = this.mapOffset(merged);
    return origin === undefined ? undefined : offsetToLocation(this.#originStarts, origin);
  }
}
