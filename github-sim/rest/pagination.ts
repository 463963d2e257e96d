/**
 * GitHub's REST pagination: `per_page` (default 30, at most 100) and `page` (from 1), with a
 * Link header whose URLs keep every other query parameter and point at the host the client
 * used, so `gh api --paginate` can follow them.
 */
import type { PageMeta } from "./rest-types.js";

export interface PageSlice<T> {
  readonly items: T[];
  readonly meta: PageMeta;
}

export function readPage(query: URLSearchParams): { page: number; perPage: number } {
  const perPage = Number.parseInt(query.get("per_page") ?? "", 10);
  const page = Number.parseInt(query.get("page") ?? "", 10);
  return {
    perPage: Number.isFinite(perPage) && perPage > 0 ? Math.min(perPage, 100) : 30,
    page: Number.isFinite(page) && page > 0 ? page : 1,
  };
}

export function slicePage<T>(all: readonly T[], query: URLSearchParams): PageSlice<T> {
  const { page, perPage } = readPage(query);
  return {
    items: all.slice((page - 1) * perPage, page * perPage),
    meta: { page, perPage, total: all.length },
  };
}

export function linkHeader(
  base: string,
  path: string,
  query: URLSearchParams,
  meta: PageMeta,
): string | undefined {
  const last = Math.max(1, Math.ceil(meta.total / meta.perPage));
  const url = (page: number) => {
    const q = new URLSearchParams(query);
    q.set("page", String(page));
    if (!q.has("per_page")) q.set("per_page", String(meta.perPage));
    return `<${base}${path}?${q.toString()}>`;
  };
  const links: string[] = [];
  if (meta.page > 1) links.push(`${url(meta.page - 1)}; rel="prev"`);
  if (meta.page < last) links.push(`${url(meta.page + 1)}; rel="next"`, `${url(last)}; rel="last"`);
  if (meta.page > 1) links.push(`${url(1)}; rel="first"`);
  return links.length > 0 ? links.join(", ") : undefined;
}
