/**
 * A GitHub connection object (`totalCount`, `nodes`, `edges { cursor node }`, `pageInfo`) over
 * an ordered list. Nodes are mapped lazily, so a query that asks only `totalCount` never builds
 * a node view. first/last were already checked by the cost analysis (GitHub refuses a
 * connection without them before running anything), so here they only slice.
 */
import { encodeCursor, type Page, type PageArgs, paginate } from "../core/paginate.js";

export interface PageInfoView {
  readonly hasNextPage: boolean;
  readonly hasPreviousPage: boolean;
  readonly startCursor: string | null;
  readonly endCursor: string | null;
}

export class Connection<T, V> {
  readonly #all: readonly T[];
  readonly #page: Page<T>;
  readonly #view: (item: T) => V;
  #nodes: V[] | undefined;

  constructor(all: readonly T[], args: PageArgs, view: (item: T) => V) {
    this.#all = all;
    this.#page = paginate(all, args);
    this.#view = view;
  }

  get totalCount(): number {
    return this.#all.length;
  }

  get nodes(): V[] {
    this.#nodes ??= this.#page.items.map(this.#view);
    return this.#nodes;
  }

  get edges(): { cursor: string; node: V }[] {
    const start = this.#page.start;
    return this.nodes.map((node, i) => ({ cursor: encodeCursor(start + i), node }));
  }

  get pageInfo(): PageInfoView {
    const { items, start } = this.#page;
    return {
      hasNextPage: this.#page.hasNextPage,
      hasPreviousPage: this.#page.hasPreviousPage,
      startCursor: items.length > 0 ? encodeCursor(start) : null,
      endCursor: items.length > 0 ? encodeCursor(start + items.length - 1) : null,
    };
  }
}

export function connection<T, V>(all: readonly T[], args: PageArgs, view: (item: T) => V): Connection<T, V> {
  return new Connection(all, args, view);
}

/** A connection with extra fields (issueCount, checkRunCount...). */
export function connectionWith<T, V, E extends Record<string, unknown>>(
  all: readonly T[],
  args: PageArgs,
  view: (item: T) => V,
  extra: E,
): Connection<T, V> & E {
  return Object.assign(new Connection(all, args, view), extra);
}

const EMPTY: readonly never[] = [];

/** An empty connection, for GitHub features the simulator does not model (projects, reactions). */
export function emptyConnection(): Connection<never, never> {
  return new Connection(EMPTY, {}, (x: never) => x);
}
