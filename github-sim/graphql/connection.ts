/**
 * A GitHub connection object (`totalCount`, `nodes`, `edges { cursor node }`, `pageInfo`) over
 * an ordered list. Nodes are mapped lazily (getters), so a query that asks only `totalCount`
 * never builds a node view. first/last were already checked by the cost analysis (GitHub refuses
 * a connection without them before running anything), so here they only slice.
 */
import { encodeCursor, type PageArgs, paginate } from "../core/paginate.js";

export interface PageInfoView {
  readonly hasNextPage: boolean;
  readonly hasPreviousPage: boolean;
  readonly startCursor: string | null;
  readonly endCursor: string | null;
}

export interface ConnectionView<V> {
  readonly totalCount: number;
  readonly nodes: V[];
  readonly edges: { cursor: string; node: V }[];
  readonly pageInfo: PageInfoView;
}

export function connection<T, V>(
  all: readonly T[],
  args: PageArgs,
  view: (item: T) => V,
  extra: Record<string, unknown> = {},
): ConnectionView<V> & Record<string, unknown> {
  const page = paginate(all, args);
  let nodes: V[] | undefined;
  const mapped = () => {
    nodes ??= page.items.map(view);
    return nodes;
  };
  return {
    ...extra,
    totalCount: all.length,
    get nodes() {
      return mapped();
    },
    get edges() {
      return mapped().map((node, i) => ({ cursor: encodeCursor(page.start + i), node }));
    },
    pageInfo: {
      hasNextPage: page.hasNextPage,
      hasPreviousPage: page.hasPreviousPage,
      startCursor: page.items.length > 0 ? encodeCursor(page.start) : null,
      endCursor: page.items.length > 0 ? encodeCursor(page.start + page.items.length - 1) : null,
    },
  };
}

/** An empty connection, for GitHub features the simulator does not model (projects, reactions). */
export function emptyConnection(): ConnectionView<never> {
  return connection([], {}, (x: never) => x);
}
