/**
 * Turns captured gh 2.23 requests (test/fixtures/gh-2.23-traffic/raw/*.jsonl) into templates the
 * replay fills with each session's own numbers, and fills them. The capture used fixed values
 * (repo o/r, PR 5, issue 7, run 1001, job 2001, workflow 42, branch "feature", node ids from the
 * mock); each is replaced by a `{{name}}` placeholder by KEY (a GraphQL variable's name, a REST
 * path segment's position), never by value alone, so the document text and every other value stay
 * byte-identical to what gh sent. Pure.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface CapturedRequest {
  readonly method: string;
  /** Path and query with `${…}` placeholders, e.g. `/repos/{{owner}}/{{repo}}/pulls/{{pr}}`. */
  readonly path: string;
  /** Lower-case names, as gh sent them (minus Host, Content-Length, Accept-Encoding, auth). */
  readonly headers: Readonly<Record<string, string>>;
  readonly operationName?: string;
  /** The GraphQL document exactly as gh sent it. */
  readonly query?: string;
  readonly variables?: JsonValue;
  /** Seconds after the capture's first request (shows gh's polling cadence). */
  readonly atS: number;
}

export interface RawCaptureRow {
  readonly t: number;
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Readonly<Record<string, unknown>>;
  readonly body: unknown;
}

const DROP_HEADERS = new Set([
  "host",
  "content-length",
  "accept-encoding",
  "authorization-present",
  "proxy-connection",
  "pragma",
  "git-protocol",
  "accept-language",
]);

const VARIABLE_RULES: readonly [key: string, test: (v: JsonValue) => boolean, placeholder: string][] = [
  ["owner", (v) => v === "o", "owner"],
  ["repo", (v) => v === "r", "repo"],
  ["name", (v) => v === "r", "repo"],
  ["pr_number", (v) => typeof v === "number", "pr"],
  ["number", (v) => typeof v === "number", "issue"],
  ["headRefName", (v) => v === "feature", "branch"],
  ["headBranch", (v) => v === "feature", "branch"],
  ["baseRefName", (v) => v === "main", "base"],
  ["repositoryId", (v) => typeof v === "string", "repoNodeId"],
  ["pullRequestId", (v) => typeof v === "string", "prNodeId"],
  ["subjectId", (v) => typeof v === "string", "prNodeId"],
  ["title", (v) => typeof v === "string", "title"],
  ["body", (v) => typeof v === "string", "body"],
];

function templateVariables(value: JsonValue, key?: string): JsonValue {
  if (Array.isArray(value)) return value.map((v) => templateVariables(v));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, templateVariables(v, k)]));
  }
  if (key === "id" && typeof value === "string") {
    return value.startsWith("IS_") ? "{{issueNodeId}}" : "{{prNodeId}}";
  }
  for (const [name, test, placeholder] of VARIABLE_RULES) {
    if (key === name && test(value)) return `{{${placeholder}}}`;
  }
  return value;
}

const PATH_RULES: readonly [RegExp, string][] = [
  [/^\/repos\/o\/r(?=\/|$)/, "/repos/{{owner}}/{{repo}}"],
  [/\/pulls\/\d+/, "/pulls/{{pr}}"],
  [/\/issues\/\d+/, "/issues/{{issue}}"],
  [/\/actions\/runs\/\d+/, "/actions/runs/{{runId}}"],
  [/\/actions\/jobs\/\d+/, "/actions/jobs/{{jobId}}"],
  [/\/actions\/workflows\/\d+/, "/actions/workflows/{{workflowId}}"],
  [/\/check-runs\/\d+/, "/check-runs/{{jobId}}"],
  [/\/git\/refs\/heads\/feature$/, "/git/refs/heads/{{branch}}"],
];

export function templatePath(path: string, query: string): string {
  let out = path;
  for (const [pattern, replacement] of PATH_RULES) out = out.replace(pattern, replacement);
  const q = query.replace(/(^|&)branch=feature(?=&|$)/, "$1branch={{branch}}");
  return q ? `${out}?${q}` : out;
}

export function templateFromRow(row: RawCaptureRow, firstT: number): CapturedRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(row.headers)) {
    const lower = name.toLowerCase();
    if (!DROP_HEADERS.has(lower) && typeof value === "string") headers[lower] = value;
  }
  const base = {
    method: row.method,
    path: templatePath(row.path, row.query),
    headers,
    atS: Math.round((row.t - firstT) * 10) / 10,
  };
  const body = row.body as { query?: unknown; variables?: unknown } | null;
  if (row.path === "/graphql" && body && typeof body.query === "string") {
    const operationName = /^\s*(?:query|mutation)\s+(\w+)/m.exec(body.query)?.[1];
    return {
      ...base,
      ...(operationName ? { operationName } : {}),
      query: body.query,
      variables: templateVariables((body.variables ?? {}) as JsonValue),
    };
  }
  return base;
}

export type Bindings = Readonly<Record<string, string | number | boolean | null>>;

/** Fills `{{name}}` placeholders: a whole-string placeholder takes the binding's type. */
export function fillValue(value: JsonValue | undefined, bindings: Bindings): JsonValue | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.map((v) => fillValue(v, bindings) as JsonValue);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, fillValue(v, bindings) as JsonValue]),
    );
  }
  if (typeof value === "string") {
    const whole = /^\{\{(\w+)\}\}$/.exec(value);
    if (whole) {
      const bound = bindings[whole[1] as string];
      if (bound === undefined) throw new Error(`replay: no binding for {{${whole[1]}}}`);
      return bound;
    }
    return value;
  }
  return value;
}

/**
 * Fills placeholders inside a path as gh does: path segments are inserted verbatim except for
 * characters a path cannot carry (a branch `ao/s1` stays `ao/s1`, as in gh's refs/heads/%s),
 * query values are form-encoded (gh's url.Values).
 */
export function fillPath(path: string, bindings: Bindings): string {
  const queryAt = path.indexOf("?");
  return path.replace(/\{\{(\w+)\}\}/g, (_, name: string, offset: number) => {
    const bound = bindings[name];
    if (bound === undefined || bound === null) throw new Error(`replay: no binding for {{${name}}}`);
    const encoded = encodeURIComponent(String(bound));
    return queryAt >= 0 && offset > queryAt ? encoded : encoded.replace(/%2F/g, "/");
  });
}
