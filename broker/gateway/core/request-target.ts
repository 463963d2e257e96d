/**
 * Where a gateway request is going, decided from the request line alone. The gateway serves:
 *   proxy mode    absolute URIs for the public API host (what gh sends through HTTP_PROXY with
 *                 GH_HOST=github.localhost: `POST http://api.github.localhost/graphql`)
 *   reverse mode  plain paths (`/repos/...`, `/graphql`), for octokit with baseUrl = the gateway
 *   blob mode     GETs of pre-signed log/artifact downloads on GitHub's blob hosts, after a redirect
 *   local routes  /metrics, the webhook endpoint, /_aob/health
 * Anything else — another host, CONNECT, a path that tries to climb out of the API — is refused:
 * the gateway is never an open proxy.
 */
export type RequestTarget =
  | {
      readonly kind: "api";
      readonly mode: "proxy" | "reverse";
      readonly path: string;
      readonly clientBase: string;
    }
  | { readonly kind: "blob"; readonly url: string }
  | { readonly kind: "local"; readonly route: LocalRoute }
  | { readonly kind: "forbidden"; readonly status: 400 | 403 | 404 | 405 | 414; readonly message: string };

export type LocalRoute = "metrics" | "webhook" | "health" | "invocation-finish";

/** Where the shim reports a gh invocation's exit (authenticated with the invocation's token). */
export const INVOCATION_FINISH_PATH = "/_aob/invocation/finish";

export interface TargetInput {
  readonly method: string;
  readonly url: string;
  readonly hostHeader: string | undefined;
  readonly publicHost: string;
  readonly blobHosts: readonly string[];
  /** @defaultValue "/webhooks/github" */
  readonly webhookPath?: string;
}

const FORBIDDEN_HOST =
  "ao-broker is not an open proxy: only the GitHub API host it serves (and GitHub's log and artifact download hosts) may be requested";

/**
 * Rejects dot segments (plain or percent-encoded) and backslashes, so resolving the path against
 * the upstream base can never climb out of it. An encoded slash inside a segment is legitimate
 * (`DELETE /repos/o/r/git/refs/heads/docs%2Freadme` is how gh deletes a branch with a slash) and is
 * forwarded as it is.
 */
function isSafePath(path: string): boolean {
  const pathname = path.split("?")[0] ?? path;
  if (pathname.includes("\\") || /%5c/i.test(pathname)) return false;
  return !pathname.split("/").some((segment) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return true;
    }
    return (
      decoded === "." || decoded === ".." || decoded.split("/").some((part) => part === "." || part === "..")
    );
  });
}

/** The simulator's stand-in for GitHub's blob hosts: log downloads it redirects gh to. */
const SIMULATOR_BLOBS = "/_sim/blobs/";

function apiTarget(
  mode: "proxy" | "reverse",
  path: string,
  clientBase: string,
  method: string,
): RequestTarget {
  if (!path.startsWith("/") || !isSafePath(path)) {
    return { kind: "forbidden", status: 400, message: "invalid request path" };
  }
  if (path.startsWith("/_") && !(method === "GET" && path.startsWith(SIMULATOR_BLOBS))) {
    return { kind: "forbidden", status: 404, message: "Not Found" };
  }
  return { kind: "api", mode, path, clientBase };
}

/**
 * Longest request target served. GitHub answers longer URIs with 414; the upstream queue refuses
 * paths over 8 KiB, so the gateway says so first instead of failing inside.
 */
export const MAX_TARGET_LENGTH = 8_192;

const API_METHODS: ReadonlySet<string> = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
]);

export function resolveTarget(input: TargetInput): RequestTarget {
  const method = input.method.toUpperCase();
  if (input.url.length > MAX_TARGET_LENGTH) {
    return {
      kind: "forbidden",
      status: 414,
      message: `URI Too Long: the limit is ${MAX_TARGET_LENGTH} characters`,
    };
  }
  if (method === "CONNECT") return { kind: "forbidden", status: 403, message: FORBIDDEN_HOST };
  // Node's parser accepts WebDAV and other methods GitHub's API has no use for; the upstream queue
  // takes only these.
  if (!API_METHODS.has(method)) return { kind: "forbidden", status: 405, message: "Method Not Allowed" };
  const url = input.url;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { kind: "forbidden", status: 400, message: "invalid request URI" };
    }
    if (parsed.username || parsed.password)
      return { kind: "forbidden", status: 403, message: FORBIDDEN_HOST };
    const host = parsed.host.toLowerCase();
    if (
      (parsed.protocol === "http:" || parsed.protocol === "https:") &&
      host === input.publicHost.toLowerCase()
    ) {
      return apiTarget(
        "proxy",
        `${parsed.pathname}${parsed.search}`,
        `${parsed.protocol}//${parsed.host}`,
        method,
      );
    }
    if (
      parsed.protocol === "https:" &&
      method === "GET" &&
      input.blobHosts.includes(parsed.hostname.toLowerCase())
    ) {
      return { kind: "blob", url: parsed.toString() };
    }
    return { kind: "forbidden", status: 403, message: FORBIDDEN_HOST };
  }
  if (!url.startsWith("/")) return { kind: "forbidden", status: 400, message: "invalid request URI" };
  const pathname = url.split("?")[0];
  if (pathname === "/metrics") return { kind: "local", route: "metrics" };
  if (pathname === (input.webhookPath ?? "/webhooks/github")) return { kind: "local", route: "webhook" };
  if (pathname === "/_aob/health") return { kind: "local", route: "health" };
  if (pathname === INVOCATION_FINISH_PATH) return { kind: "local", route: "invocation-finish" };
  const host =
    input.hostHeader && /^[A-Za-z0-9.[\]:-]+$/.test(input.hostHeader) ? input.hostHeader : "127.0.0.1";
  return apiTarget("reverse", url, `http://${host}`, method);
}

/**
 * Rewrites the API URLs GitHub puts in JSON answers (`"url": "https://api.github.com/repos/..."`,
 * `jobs_url`, `logs_url`...) to the client's base, so a client that follows them (gh run view reads
 * jobs_url) comes back through the gateway instead of going to GitHub with a broker token. Only
 * strings that START with the upstream base are rewritten; the same text inside prose is left be.
 * Cheap when there is nothing to do: a byte search before any decoding.
 */
export function rewriteBodyUrls(body: Buffer, upstreamBase: string, clientBase: string): Buffer {
  const base = upstreamBase.replace(/\/+$/, "");
  if (base === clientBase) return body;
  const needle = `"${base}`;
  if (body.indexOf(needle) === -1) return body;
  return Buffer.from(body.toString("utf8").split(needle).join(`"${clientBase}`));
}

/** Rewrites absolute upstream URLs in Link/Location headers to the base the client used. */
export function rewriteUpstreamUrls(value: string, upstreamBase: string, clientBase: string): string {
  const base = upstreamBase.replace(/\/+$/, "");
  return value.split(base).join(clientBase);
}
