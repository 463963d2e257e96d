/**
 * Low-cardinality names for GitHub requests, and URLs safe to put in a span.
 *
 * Span names must not carry ids (OTel: "the span name SHOULD be the most general string that
 * identifies a (statistically) interesting class of spans"), so `/repos/acme/widgets/pulls/12` is
 * named `GET /repos/{owner}/{repo}/pulls/{number}`. The templates follow the placeholders of
 * GitHub's REST docs where they are recognisable from the path alone.
 *
 * `safeUrl` drops user-info and the values of query parameters that look like credentials
 * (access_token, pre-signed blob signatures such as sig / X-Amz-Signature): `url.full` must not
 * carry credentials (https://opentelemetry.io/docs/specs/semconv/registry/attributes/url/).
 */

const SECRET_QUERY_PARAM = /token|secret|password|sig|signature|credential|key|code/i;

/** Segments after which the rest of the path is one opaque parameter (a ref, a file path). */
const OPAQUE_TAIL: Readonly<Record<string, string>> = {
  contents: "{path}",
  refs: "{ref}",
  ref: "{ref}",
  compare: "{basehead}",
};

/** Segments whose single following segment is a named parameter. */
const NAMED_NEXT: Readonly<Record<string, string>> = {
  commits: "{ref}",
  branches: "{branch}",
  labels: "{name}",
  users: "{username}",
  orgs: "{org}",
  tags: "{tag}",
};

function templateSegment(segment: string): string {
  if (/^\d+$/.test(segment)) return "{number}";
  if (/^[0-9a-f]{40}$|^[0-9a-f]{64}$/i.test(segment)) return "{sha}";
  return segment;
}

/**
 * `/repos/acme/widgets/pulls/12?per_page=1` → `/repos/{owner}/{repo}/pulls/{number}`. A request
 * span needs its route twice (its name and `http.route`): compute it once and pass it to
 * requestSpanName, rather than memoising here (a module-level cache would be state shared by every
 * telemetry in the process).
 */
export function routeTemplate(path: string): string {
  const pathname = (path.split("?")[0] ?? "").split("#")[0] ?? "";
  const segments = pathname.split("/");
  const out: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] ?? "";
    const previous = segments[i - 1];
    if (previous === "repos" && i === 2) {
      out.push("{owner}");
      continue;
    }
    if (segments[1] === "repos" && i === 3) {
      out.push("{repo}");
      continue;
    }
    const tail = previous === undefined ? undefined : OPAQUE_TAIL[previous];
    if (tail !== undefined && i > 1) {
      out.push(tail);
      break;
    }
    const named = previous === undefined ? undefined : NAMED_NEXT[previous];
    out.push(named !== undefined && segment !== "" ? named : templateSegment(segment));
  }
  const result = out.join("/");
  return result === "" ? "/" : result;
}

/**
 * Span name of a gateway or upstream request: REST `GET /repos/{owner}/{repo}`, GraphQL
 * `graphql PullRequestByNumber`. `route`: the path's routeTemplate when the caller has it already.
 */
export function requestSpanName(
  request: {
    readonly method: string;
    readonly path: string;
    readonly operationName?: string | undefined;
  },
  route?: string,
): string {
  const pathname = request.path.split("?")[0] ?? "";
  if (pathname === "/graphql" || pathname === "/api/graphql") {
    return `graphql ${request.operationName ?? "anonymous"}`;
  }
  return `${request.method.toUpperCase()} ${route ?? routeTemplate(request.path)}`;
}

/** The URL without user-info and with credential-like query values replaced. Invalid URLs yield undefined. */
export function safeUrl(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  url.username = "";
  url.password = "";
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_QUERY_PARAM.test(name)) url.searchParams.set(name, "REDACTED");
  }
  return url.toString();
}
