/**
 * Builds a rewritten GraphQL document out of slices of callers' texts, recording for every caller
 * where each of its characters went (see location-map.ts). The only edits are insertions before
 * a token (alias, variable and fragment-name prefixes): everything copied keeps its characters,
 * its line breaks and its comments, so positions inside a slice move by whole-slice offsets only.
 *
 * A slice can belong to several callers at once (a fragment deduplicated because its text is
 * identical in each): every owner gets the same segments, each pointing into its own text.
 */
import { LocationMap, type MapSegment } from "./location-map.js";

export interface Insertion {
  /** Offset in the slice's source before which `text` is inserted. */
  readonly offset: number;
  readonly text: string;
}

export interface SliceOwner {
  /** Index of the caller whose text this is. */
  readonly member: number;
  /** Offset in the owner's text that corresponds to the slice's `start`. */
  readonly originStart: number;
}

export interface SliceOptions {
  readonly source: string;
  readonly start: number;
  readonly end: number;
  /** Sorted by offset, each within [start, end]. */
  readonly insertions: readonly Insertion[];
  readonly owners: readonly SliceOwner[];
}

export class MergedTextBuilder {
  readonly #parts: string[] = [];
  #length = 0;
  readonly #segments = new Map<number, MapSegment[]>();

  get length(): number {
    return this.#length;
  }

  appendSynthetic(text: string): void {
    this.#parts.push(text);
    this.#length += text.length;
  }

  appendSlice(options: SliceOptions): void {
    let cursor = options.start;
    for (const insertion of options.insertions) {
      if (insertion.offset < cursor || insertion.offset > options.end) {
        throw new RangeError(`insertion at ${insertion.offset} is outside the slice or out of order`);
      }
      this.#copy(options, cursor, insertion.offset);
      this.#record(options, this.#length, this.#length + insertion.text.length, insertion.offset, true);
      this.appendSynthetic(insertion.text);
      cursor = insertion.offset;
    }
    this.#copy(options, cursor, options.end);
  }

  build(originTexts: readonly string[]): { text: string; maps: LocationMap[] } {
    const text = this.#parts.join("");
    const maps = originTexts.map(
      (origin, member) => new LocationMap(this.#segments.get(member) ?? [], text, origin),
    );
    return { text, maps };
  }

  #copy(options: SliceOptions, from: number, to: number): void {
    if (to <= from) return;
    this.#record(options, this.#length, this.#length + (to - from), from, false);
    this.appendSynthetic(options.source.slice(from, to));
  }

  #record(
    options: SliceOptions,
    mergedStart: number,
    mergedEnd: number,
    offset: number,
    point: boolean,
  ): void {
    if (mergedEnd <= mergedStart) return;
    for (const owner of options.owners) {
      let list = this.#segments.get(owner.member);
      if (!list) {
        list = [];
        this.#segments.set(owner.member, list);
      }
      list.push({ mergedStart, mergedEnd, originStart: owner.originStart + (offset - options.start), point });
    }
  }
}
