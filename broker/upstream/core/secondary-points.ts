/**
 * GitHub's secondary rate limits count "points" per request, separate from the primary budget
 * (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#calculating-points-for-the-secondary-rate-limit):
 * GraphQL without mutations 1, with mutations 5; REST GET/HEAD/OPTIONS 1, POST/PATCH/PUT/DELETE 5.
 * At most 900 points per minute per REST endpoint and 2,000 per minute for the GraphQL endpoint;
 * at most 80 content-creating requests per minute and 500 per hour.
 *
 * "Endpoint" is GitHub's word and it does not publish its grouping, so routes are normalised
 * conservatively: owner, repo, user and org names, numbers and SHAs become placeholders, and
 * all methods of a route share one count. Two repos' PRs therefore count as one endpoint, which
 * can only make the broker slower than GitHub requires, never faster.
 */

export type RequestKind = "rest" | "graphql";

const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function secondaryPoints(kind: RequestKind, method: string, mutation: boolean): number {
  if (kind === "graphql") return mutation ? 5 : 1;
  return READ_METHODS.has(method.toUpperCase()) ? 1 : 5;
}

export function isReadMethod(method: string): boolean {
  return READ_METHODS.has(method.toUpperCase());
}

/** The first segments that name an account or repo, by the route's first segment. */
const NAMES: Readonly<Record<string, readonly string[]>> = {
  repos: [":owner", ":repo"],
  users: [":owner"],
  orgs: [":owner"],
  enterprises: [":owner"],
};

/** `/repos/acme/widgets/pulls/12?x=1` → `/repos/:owner/:repo/pulls/:n`; GraphQL is one endpoint. */
export function endpointKey(kind: RequestKind, path: string): string {
  if (kind === "graphql") return "graphql";
  const pathname = (path.split("?")[0] ?? "").split("#")[0] ?? "";
  const segments = pathname.split("/").filter((s) => s.length > 0);
  const names = NAMES[segments[0] ?? ""] ?? [];
  const out = segments.map((segment, i) => {
    if (i >= 1 && i <= names.length) return names[i - 1]!;
    if (/^\d+$/.test(segment)) return ":n";
    if (/^[0-9a-f]{40}$/i.test(segment)) return ":sha";
    return segment;
  });
  return `/${out.join("/")}`;
}
