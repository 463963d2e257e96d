/**
 * Gateway inputs as raw bytes (the request line, headers and body exactly as a socket carries
 * them): broken framing (request lines, versions, header syntax, lengths, chunking, pipelining),
 * hostile headers (huge, duplicated, smuggling pairs), bodies (random, oversized), REST paths and
 * absolute URIs, GraphQL documents and variables, and the webhook endpoint with good, bad and
 * missing signatures. Each case says whether closing without an answer is acceptable: only when
 * the case itself breaks off mid-request (the client promised more body than it sends).
 */
import { createHmac } from "node:crypto";
import { graphqlBody } from "./graphql-inputs.js";
import type { Rng } from "./rng.js";

export interface HttpCase {
  readonly kind: "framing" | "headers" | "rest" | "graphql" | "webhook";
  readonly bytes: Buffer;
  /** The case breaks off mid-request, so the server may close without answering. */
  readonly mayClose: boolean;
}

export interface HttpContext {
  /** A valid session token, and a read-only one. */
  readonly token: string;
  readonly readOnlyToken: string;
  readonly webhookSecret: string;
  readonly host: string;
}

const METHODS = [
  "GET",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "HEAD",
  "OPTIONS",
  "TRACE",
  "CONNECT",
  "PROPFIND",
  "get",
  "G\u0000T",
  "",
  "GETGETGETGETGETGET",
];
const VERSIONS = ["HTTP/1.1", "HTTP/1.0", "HTTP/0.9", "HTTP/2.0", "HTTP/1.1x", "HTTP/9.9", "http/1.1", ""];
const PATHS = [
  "/repos/acme/widgets",
  "/repos/acme/widgets/pulls/1",
  "/repos/acme/widgets/pulls?state=all&per_page=100",
  "/repos/acme/widgets/issues/10/comments",
  "/repos/acme/widgets/commits/main/check-runs",
  "/repos/acme/widgets/actions/runs",
  "/user",
  "/rate_limit",
  "/graphql",
  "/search/issues?q=repo:acme/widgets+is:pr",
  "/metrics",
  "/_aob/health",
  "/_aob/invocation/finish",
  "/webhooks/github",
  "/_sim/stats",
  "/",
  "*",
  "//evil.example/x",
  "/repos/acme/widgets/../../etc/passwd",
  "/repos/%2e%2e/%2e%2e",
  "/repos/acme/widgets%2f..%2f..",
  "/repos/acme/\u00e9",
  "/repos/acme/widgets?%zz",
  "http://api.github.localhost/repos/acme/widgets",
  "http://evil.example/",
  "https://api.github.localhost/graphql",
  "http://user:pw@api.github.localhost/user",
  "ftp://api.github.localhost/",
  "api.github.localhost:443",
];

/** Percent-encodes every byte outside [A-Za-z0-9-._~] (lone surrogates become U+FFFD first). */
function pct(text: string): string {
  return [...Buffer.from(text, "utf8")]
    .map((b) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).padStart(2, "0")}`,
    )
    .join("");
}

function authHeader(rng: Rng, ctx: HttpContext): string | undefined {
  switch (rng.int(0, 9)) {
    case 0:
      return undefined;
    case 1:
      return `token ${rng.text(rng.length(100), true).replace(/[\r\n]/g, "")}`;
    case 2:
      return `Bearer ${ctx.readOnlyToken}`;
    case 3:
      return rng.pick([
        "token",
        "Basic dXNlcjpwYXNz",
        `token ${ctx.token}.${"A".repeat(rng.int(1, 20_000))}`,
        `token ${ctx.token}.eyJpIjoiYWJjIn0`,
      ]);
    default:
      return `token ${ctx.token}`;
  }
}

function headerLines(headers: readonly (readonly [string, string])[]): string {
  return headers.map(([k, v]) => `${k}: ${v}\r\n`).join("");
}

function request(
  line: string,
  headers: readonly (readonly [string, string])[],
  body: Buffer | string = "",
): Buffer {
  return Buffer.concat([Buffer.from(`${line}\r\n${headerLines(headers)}\r\n`, "latin1"), Buffer.from(body)]);
}

/** Broken framing: the parser's job. */
function framing(rng: Rng, ctx: HttpContext): HttpCase {
  const auth = authHeader(rng, ctx);
  const base: [string, string][] = [
    ["host", ctx.host],
    ["connection", "close"],
  ];
  if (auth) base.push(["authorization", auth]);
  switch (rng.int(0, 11)) {
    case 0:
      return { kind: "framing", bytes: rng.bytes(rng.length(4_096)), mayClose: true };
    case 1:
      return {
        kind: "framing",
        bytes: Buffer.from(
          `${rng.pick(METHODS)} ${rng.pick(PATHS)} ${rng.pick(VERSIONS)}\r\n${headerLines(base)}\r\n`,
          "latin1",
        ),
        mayClose: false,
      };
    case 2: // header without colon, bare LF, obs-fold, NUL
      return {
        kind: "framing",
        bytes: Buffer.from(
          `GET /user HTTP/1.1\r\nhost: ${ctx.host}\r\n${rng.pick(["no-colon-here", "x:\u0000y", " folded: line", "x-a: b\nx-b: c", "bad header: v", ": empty-name"])}\r\nconnection: close\r\n\r\n`,
          "latin1",
        ),
        mayClose: false,
      };
    case 3: {
      // content-length lies
      const body = rng.text(rng.int(0, 200));
      const declared = rng.pick([
        body.length + rng.int(1, 1_000),
        "-1",
        "abc",
        "1, 2",
        `${body.length}, ${body.length + 1}`,
        "99999999999999999999",
      ]);
      return {
        kind: "framing",
        bytes: request(
          "POST /repos/acme/widgets/issues/10/comments HTTP/1.1",
          [...base, ["content-type", "application/json"], ["content-length", String(declared)]],
          body,
        ),
        mayClose: typeof declared === "number",
      };
    }
    case 4: {
      // chunked, well-formed or not, with or without a content-length too (smuggling)
      const good = rng.chance(0.4);
      const body = good
        ? "5\r\nhello\r\n0\r\n\r\n"
        : rng.pick([
            "zz\r\nhello\r\n0\r\n\r\n",
            "5\r\nhel",
            "ffffffffffffffff\r\nx\r\n",
            "5;ext=\u0000\r\nhello\r\n0\r\n\r\n",
            "0\r\n",
          ]);
      const headers: [string, string][] = [
        ...base,
        ["transfer-encoding", rng.pick(["chunked", "chunked, gzip", "gzip", "Chunked", "chunked\u0000"])],
      ];
      if (rng.chance(0.4)) headers.push(["content-length", String(rng.int(0, 50))]);
      return { kind: "framing", bytes: request("POST /graphql HTTP/1.1", headers, body), mayClose: !good };
    }
    case 5: // huge header block
      return {
        kind: "framing",
        bytes: request("GET /user HTTP/1.1", [
          ...base,
          ["x-big", "a".repeat(rng.pick([8_000, 20_000, 100_000]))],
        ]),
        mayClose: false,
      };
    case 6: // many headers
      return {
        kind: "framing",
        bytes: request("GET /user HTTP/1.1", [
          ...base,
          ...Array.from(
            { length: rng.pick([100, 2_000, 5_000]) },
            (_, i) => [`x-h${i}`, "v"] as [string, string],
          ),
        ]),
        mayClose: false,
      };
    case 7: // huge request line
      return {
        kind: "framing",
        bytes: request(
          `GET /repos/acme/widgets?q=${"x".repeat(rng.pick([10_000, 70_000, 200_000]))} HTTP/1.1`,
          base,
        ),
        mayClose: false,
      };
    case 8: // pipelined requests, the second one broken
      return {
        kind: "framing",
        bytes: Buffer.concat([
          request("GET /_aob/health HTTP/1.1", [["host", ctx.host]]),
          request(`${rng.pick(METHODS)} ${rng.pick(PATHS)} HTTP/1.1`, base),
          rng.bytes(rng.int(0, 64)),
        ]),
        mayClose: false,
      };
    case 9: // duplicated or conflicting headers
      return {
        kind: "framing",
        bytes: request("GET /repos/acme/widgets HTTP/1.1", [
          ["host", ctx.host],
          ["host", "evil.example"],
          ["authorization", `token ${ctx.token}`],
          ["authorization", "token other"],
          ["connection", "close"],
        ]),
        mayClose: false,
      };
    case 10: // expect / upgrade
      return {
        kind: "framing",
        bytes: request(
          "POST /graphql HTTP/1.1",
          [
            ...base,
            rng.chance(0.5)
              ? ["expect", rng.pick(["100-continue", "200-ok", "x"])]
              : ["upgrade", rng.pick(["websocket", "h2c", "x"])],
            ...(rng.chance(0.5) ? ([["connection", "upgrade"]] as [string, string][]) : []),
            ["content-type", "application/json"],
            ["content-length", "2"],
          ],
          "{}",
        ),
        mayClose: false,
      };
    default: // absolute URIs, CONNECT, odd targets
      return {
        kind: "framing",
        bytes: request(`${rng.pick(["GET", "CONNECT", "POST"])} ${rng.pick(PATHS)} HTTP/1.1`, base),
        mayClose: false,
      };
  }
}

/** Well-formed HTTP with hostile header values. */
function headers(rng: Rng, ctx: HttpContext): HttpCase {
  const list: [string, string][] = [
    ["host", rng.chance(0.8) ? ctx.host : rng.text(rng.length(300)).replace(/[\r\n]/g, "")],
    ["connection", "close"],
  ];
  const auth = authHeader(rng, ctx);
  if (auth) list.push(["authorization", auth]);
  const names = [
    "accept",
    "if-none-match",
    "if-modified-since",
    "x-ao-broker-priority",
    "x-ao-broker-allow-stale",
    "x-github-api-version",
    "x-forwarded-host",
    "x-forwarded-for",
    "content-encoding",
    "content-type",
    "cookie",
    "proxy-authorization",
    "graphql-features",
    "user-agent",
    "range",
    "x-http-method-override",
  ];
  for (let i = rng.length(12); i > 0; i--) {
    list.push([rng.pick(names), rng.text(rng.length(2_000)).replace(/[\r\n]/g, "")]);
  }
  const method = rng.pick(["GET", "GET", "POST", "PATCH", "DELETE"]);
  const path = rng.pick(PATHS.filter((p) => p.startsWith("/repos") || p === "/user" || p === "/graphql"));
  const body = method === "GET" ? "" : path === "/graphql" ? graphqlBody(rng) : JSON.stringify(rng.json(2));
  list.push(["content-length", String(Buffer.byteLength(body))]);
  return { kind: "headers", bytes: request(`${method} ${path} HTTP/1.1`, list, body), mayClose: false };
}

/** REST requests with valid framing and token, random paths, queries and bodies. */
function rest(rng: Rng, ctx: HttpContext): HttpCase {
  const segments = [
    "repos",
    "acme",
    "widgets",
    "pulls",
    "issues",
    "1",
    "10",
    "comments",
    "reviews",
    "files",
    "commits",
    "main",
    "check-runs",
    "actions",
    "runs",
    "jobs",
    "logs",
    "git",
    "refs",
    "heads",
    "x%2Fy",
    "merge",
    "",
    "..",
    "%00",
    "é",
  ];
  const path = rng.chance(0.5)
    ? `/${Array.from({ length: rng.int(1, 8) }, () => rng.pick(segments)).join("/")}`
    : rng.pick(PATHS.filter((p) => p.startsWith("/")));
  const query = rng.chance(0.4)
    ? `?${Array.from({ length: rng.int(1, 6) }, () => `${rng.pick(["per_page", "page", "state", "q", "ref", "x"])}=${pct(rng.text(rng.length(50), true))}`).join("&")}`
    : "";
  // Writes are rare: a well-formed one takes the serial write lane (one a second).
  const method = rng.chance(0.97)
    ? rng.pick(["GET", "HEAD", "OPTIONS"])
    : rng.pick(["POST", "PATCH", "PUT", "DELETE"]);
  const body =
    method === "GET" || method === "HEAD"
      ? ""
      : rng.chance(0.5)
        ? JSON.stringify(rng.json(3))
        : rng.text(rng.length(5_000), true);
  const list: [string, string][] = [
    ["host", ctx.host],
    ["connection", "close"],
    ["authorization", `token ${rng.chance(0.9) ? ctx.token : ctx.readOnlyToken}`],
    ["content-length", String(Buffer.byteLength(body))],
  ];
  return { kind: "rest", bytes: request(`${method} ${path}${query} HTTP/1.1`, list, body), mayClose: false };
}

function graphql(rng: Rng, ctx: HttpContext): HttpCase {
  const body = graphqlBody(rng);
  const target = rng.chance(0.5) ? "/graphql" : "http://api.github.localhost/graphql";
  return {
    kind: "graphql",
    bytes: request(
      `POST ${target} HTTP/1.1`,
      [
        ["host", ctx.host],
        ["connection", "close"],
        ["authorization", `token ${ctx.token}`],
        ["content-type", "application/json"],
        ["content-length", String(Buffer.byteLength(body))],
      ],
      body,
    ),
    mayClose: false,
  };
}

const EVENTS = [
  "pull_request",
  "check_run",
  "check_suite",
  "status",
  "workflow_run",
  "pull_request_review",
  "issue_comment",
  "push",
  "ping",
  "",
  "x".repeat(300),
  "__proto__",
];

function webhook(rng: Rng, ctx: HttpContext): HttpCase {
  const payload = rng.chance(0.5)
    ? JSON.stringify({
        action: rng.pick([
          "opened",
          "closed",
          "synchronize",
          "completed",
          "submitted",
          "created",
          rng.text(10),
        ]),
        number: rng.pick([1, 2, 3, -1, 1e20, "1", null]),
        pull_request: rng.chance(0.6)
          ? {
              number: rng.int(0, 5),
              head: { ref: rng.pick(["feature/a", "", null]), sha: rng.text(40) },
              state: "open",
            }
          : rng.json(2),
        check_run: rng.chance(0.3) ? { head_sha: rng.text(40), pull_requests: rng.json(2) } : undefined,
        repository: rng.chance(0.8)
          ? { full_name: rng.pick(["acme/widgets", "other/repo", "", "../x"]) }
          : rng.json(1),
      })
    : rng.chance(0.5)
      ? JSON.stringify(rng.json(4))
      : rng.text(rng.length(3_000), true);
  const signature = rng.int(0, 4);
  const sig =
    signature === 0
      ? undefined
      : signature === 1
        ? `sha256=${createHmac("sha256", "wrong").update(payload).digest("hex")}`
        : signature === 2
          ? rng.pick(["sha256=", "sha1=abc", "sha256=zz", "x".repeat(500)])
          : `sha256=${createHmac("sha256", ctx.webhookSecret).update(payload).digest("hex")}`;
  const list: [string, string][] = [
    ["host", ctx.host],
    ["connection", "close"],
    ["content-type", rng.pick(["application/json", "application/x-www-form-urlencoded", "text/plain"])],
  ];
  if (rng.chance(0.9)) list.push(["x-github-event", rng.pick(EVENTS)]);
  if (rng.chance(0.9))
    list.push(["x-github-delivery", rng.chance(0.7) ? `d-${rng.int(0, 1e9)}` : rng.text(rng.length(200))]);
  if (sig) list.push(["x-hub-signature-256", sig]);
  list.push(["content-length", String(Buffer.byteLength(payload))]);
  return {
    kind: "webhook",
    bytes: request(
      `${rng.pick(["POST", "POST", "POST", "GET", "PUT"])} /webhooks/github HTTP/1.1`,
      list,
      payload,
    ),
    mayClose: false,
  };
}

/** One gateway input; the mix favours what reaches the broker's own code. */
export function httpCase(rng: Rng, ctx: HttpContext): HttpCase {
  const r = rng.next();
  if (r < 0.3) return framing(rng, ctx);
  if (r < 0.5) return headers(rng, ctx);
  if (r < 0.72) return rest(rng, ctx);
  if (r < 0.8) return graphql(rng, ctx);
  return webhook(rng, ctx);
}
