/**
 * The `proxy` arm's policy, modelled on prow's ghcache (kubernetes-sigs/prow pkg/ghcache): a
 * caching proxy for GitHub's REST API that saves tokens only through conditional requests, which
 * GitHub does not charge for (https://docs.github.com/rest/using-the-rest-api/best-practices-for-using-the-rest-api#use-conditional-requests-if-appropriate).
 * - GET answers with an ETag are stored per (token partition, URL, Accept);
 * - EVERY later GET is revalidated upstream with If-None-Match (ghcache rewrites Cache-Control so
 *   nothing is served without asking GitHub); a 304 is answered from the store ("REVALIDATED");
 * - identical GETs in flight share one upstream call ("COALESCED");
 * - everything else (GraphQL, writes) passes through untouched ("BYPASS"): no GraphQL cache, no
 *   batching, no budgets. Pure decisions; proxy-server.ts does the I/O.
 */
import { createHash } from "node:crypto";

export type GhcacheMode = "MISS" | "REVALIDATED" | "COALESCED" | "BYPASS" | "NO-STORE";

export interface StoredAnswer {
  readonly etag: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** One cache per hashed Authorization (ghcache's partitioner), then URL and Accept. */
export function ghcacheKey(
  method: string,
  url: string,
  headers: Readonly<Record<string, string>>,
): string | undefined {
  if (method !== "GET") return undefined;
  const partition = createHash("sha256")
    .update(headers.authorization ?? "")
    .digest("hex")
    .slice(0, 16);
  return `${partition} ${url} ${headers.accept ?? ""}`;
}

/** Headers for the upstream request: the client's, plus If-None-Match from the store. */
export function upstreamHeaders(
  client: Readonly<Record<string, string>>,
  stored: StoredAnswer | undefined,
): Record<string, string> {
  const headers = { ...client };
  if (stored && !headers["if-none-match"]) headers["if-none-match"] = stored.etag;
  return headers;
}

export interface Resolution {
  /** What to send the client. */
  readonly answer: { status: number; headers: Record<string, string>; body: Buffer };
  /** What to keep (undefined = keep what is there; null = drop it). */
  readonly store: StoredAnswer | null | undefined;
  readonly mode: GhcacheMode;
}

/**
 * Decides the client's answer from the upstream one. A 304 to OUR If-None-Match becomes the stored
 * 200 (unless the client asked conditionally with the same ETag: then it gets its 304). Errors are
 * never stored.
 */
export function resolveUpstream(input: {
  readonly clientIfNoneMatch: string | undefined;
  readonly stored: StoredAnswer | undefined;
  readonly upstream: { status: number; headers: Readonly<Record<string, string>>; body: Buffer };
}): Resolution {
  const { stored, upstream, clientIfNoneMatch } = input;
  if (upstream.status === 304 && stored && clientIfNoneMatch !== stored.etag) {
    return {
      answer: {
        status: stored.status,
        headers: { ...stored.headers, ...rateHeaders(upstream.headers) },
        body: stored.body,
      },
      store: undefined,
      mode: "REVALIDATED",
    };
  }
  if (upstream.status === 304)
    return {
      answer: { ...upstream, headers: { ...upstream.headers } },
      store: undefined,
      mode: "REVALIDATED",
    };
  const etag = upstream.headers.etag;
  if (upstream.status === 200 && etag) {
    return {
      answer: { ...upstream, headers: { ...upstream.headers } },
      store: { etag, status: upstream.status, headers: { ...upstream.headers }, body: upstream.body },
      mode: "MISS",
    };
  }
  return {
    answer: { ...upstream, headers: { ...upstream.headers } },
    store: upstream.status >= 400 ? undefined : null,
    mode: "NO-STORE",
  };
}

function rateHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (name.startsWith("x-ratelimit-")) out[name] = value;
  return out;
}
