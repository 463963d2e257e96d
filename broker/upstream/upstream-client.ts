/**
 * Sends one request to GitHub (or the configured upstream) with the PAT, through
 * @octokit/request, and returns GitHub's answer exactly: status, headers and body BYTES.
 *
 * Why the detour: the gateway must answer byte-identical bodies, but octokit parses bodies and
 * throws on 304 and ≥ 400. So octokit is given a fetch (`request.fetch`) that performs the real
 * request with undici on a keep-alive Agent, reads the whole body as bytes into a per-call
 * capture, and hands octokit an empty stand-in response (octokit only needs its status). With
 * `parseSuccessResponseBody: false` octokit never reads a success body; whatever octokit returns
 * or throws afterwards, the captured answer is what we return. The fetch also uses the caller's
 * URL verbatim: octokit would rewrite `:name` and `{name}` in paths (search queries contain
 * `repo:acme/widgets`).
 *
 * Invariants:
 * - The PAT is added here and nowhere else; it never appears in a returned header, an error
 *   message or `data` (messages are scrubbed, octokit/undici errors are not passed on as causes).
 * - Bodies come back decoded (undici undoes gzip/deflate/br), so content-encoding and
 *   content-length are dropped from the returned headers, as are hop-by-hop headers.
 * - Redirects are returned, not followed (the gateway decides; GitHub sends 302 for log downloads).
 * - Failures say whether the request could have reached GitHub (`data.sent`: false | "unknown"),
 *   which decides whether a write may be retried.
 */
import { request as octokitRequest } from "@octokit/request";
import { Agent, fetch as undiciFetch } from "undici";
import { AoError, type Logger, scrubSecrets, silentLogger } from "../../common/index.js";
import { UpstreamErrors } from "./errors.js";
import { UPSTREAM_DEFAULTS } from "./upstream-settings.js";

export interface UpstreamClientOptions {
  /** @defaultValue "https://api.github.com" */
  readonly baseUrl?: string;
  /** The PAT, or a function returning it; none → no Authorization header (a simulator may not need one). */
  readonly token?: string | (() => string | undefined);
  /** Whole exchange, from connect to the last body byte. @defaultValue 30000 */
  readonly timeoutMs?: number;
  /** @defaultValue 10000 */
  readonly connectTimeoutMs?: number;
  /** Keep-alive connections to the upstream. @defaultValue 64 */
  readonly connections?: number;
  /** Sent when the caller sent none. @defaultValue "ao-broker" */
  readonly userAgent?: string;
  readonly logger?: Logger;
}

export interface UpstreamRequest {
  readonly method: string;
  /** Path and query as GitHub sees it: `/repos/o/r/pulls?per_page=1`, `/graphql`. */
  readonly path: string;
  /** Lower-case names; Authorization, Host and hop-by-hop headers are ignored. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly body?: Buffer | undefined;
  /** @defaultValue the client's timeoutMs */
  readonly timeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

export interface UpstreamResponse {
  readonly status: number;
  /** Lower-case names as GitHub sent them, minus hop-by-hop and encoding headers. */
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  /** Time from sending to the last body byte. */
  readonly upstreamMs: number;
}

interface Captured {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Request headers never forwarded: credentials of the caller, and per-hop or recomputed ones. */
const DROP_REQUEST = new Set([
  "authorization",
  "host",
  "connection",
  "keep-alive",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "content-length",
  "accept-encoding",
  "expect",
]);
const DROP_RESPONSE = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "trailer",
  "upgrade",
  "content-length",
]);
/** Encodings undici's fetch decodes for us. */
const DECODED = new Set(["gzip", "x-gzip", "deflate", "br"]);
/** Failures that happen before any byte of the request left. */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
  "ERR_INVALID_URL",
]);

function errorCodes(err: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = err;
  for (let depth = 0; depth < 6 && current && typeof current === "object"; depth++) {
    const c = current as { code?: unknown; errors?: unknown; cause?: unknown };
    if (typeof c.code === "string") codes.push(c.code);
    if (Array.isArray(c.errors)) for (const inner of c.errors) codes.push(...errorCodes(inner));
    current = c.cause;
  }
  return codes;
}

export class UpstreamClient {
  readonly baseUrl: string;
  readonly #token: () => string | undefined;
  readonly #timeoutMs: number;
  readonly #userAgent: string;
  readonly #agent: Agent;
  readonly #logger: Logger;
  readonly #request: typeof octokitRequest;

  constructor(options: UpstreamClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? "https://api.github.com").replace(/\/+$/, "");
    const token = options.token;
    this.#token = typeof token === "function" ? token : () => token;
    this.#timeoutMs = options.timeoutMs ?? UPSTREAM_DEFAULTS.timeoutMs;
    this.#userAgent = options.userAgent ?? "ao-broker";
    this.#logger = (options.logger ?? silentLogger()).child({ component: "upstream-client" });
    const connectTimeout = options.connectTimeoutMs ?? UPSTREAM_DEFAULTS.connectTimeoutMs;
    this.#agent = new Agent({
      connections: options.connections ?? UPSTREAM_DEFAULTS.connections,
      keepAliveTimeout: 30_000,
      connect: { timeout: connectTimeout },
      // The per-request AbortSignal bounds the whole exchange; undici's own timers would cut
      // a request short of the timeout its caller asked for.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    this.#request = octokitRequest.defaults({
      baseUrl: this.baseUrl,
      request: { parseSuccessResponseBody: false, redirect: "manual" },
    });
  }

  async send(req: UpstreamRequest): Promise<UpstreamResponse> {
    if (!/^[A-Z]+$/.test(req.method) || !req.path.startsWith("/") || /[\s]/.test(req.path)) {
      throw new AoError(UpstreamErrors.AO_ERR_UPSTREAM_BAD_REQUEST, "upstream: bad method or path", {
        httpStatus: 500,
      });
    }
    const url = `${this.baseUrl}${req.path}`;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers ?? {})) {
      const lower = name.toLowerCase();
      if (!DROP_REQUEST.has(lower) && !lower.startsWith("x-ao-broker-")) headers[lower] = value;
    }
    headers["user-agent"] ??= this.#userAgent;
    const token = this.#token();
    if (token) headers.authorization = `token ${token}`;
    const timeout = AbortSignal.timeout(req.timeoutMs ?? this.#timeoutMs);
    const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
    const capture: { answer?: Captured } = {};
    const agent = this.#agent;
    const started = performance.now();

    // The fetch octokit calls: the real request, the raw bytes kept aside, an empty stand-in back.
    const fetch = async (_octokitUrl: unknown, init: Record<string, unknown>): Promise<Response> => {
      const response = await undiciFetch(url, {
        method: init.method as string,
        headers: init.headers as Record<string, string>,
        body: (init.body as Buffer | string | undefined) ?? null,
        redirect: "manual",
        signal,
        dispatcher: agent,
      });
      const body = Buffer.from(await response.arrayBuffer());
      const out: Record<string, string> = {};
      const encoding = response.headers.get("content-encoding")?.toLowerCase();
      for (const [name, value] of response.headers) {
        if (DROP_RESPONSE.has(name)) continue;
        if (name === "content-encoding" && encoding && DECODED.has(encoding)) continue;
        out[name] = value;
      }
      capture.answer = { status: response.status, headers: out, body };
      return new Response(null, { status: response.status });
    };

    try {
      await this.#request({
        method: req.method,
        // octokit needs a route; the real URL is the one our fetch uses.
        url: "/",
        headers,
        ...(req.body !== undefined && req.method !== "GET" && req.method !== "HEAD"
          ? { data: req.body }
          : {}),
        request: { fetch, signal },
      } as never);
    } catch (err) {
      if (!capture.answer) throw this.#failure(err, timeout.aborted, req);
    }
    const answer = capture.answer;
    if (!answer) throw this.#failure(new Error("no answer captured"), false, req);
    return { ...answer, upstreamMs: Math.round(performance.now() - started) };
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }

  #failure(err: unknown, timedOut: boolean, req: UpstreamRequest): AoError {
    const codes = errorCodes(err);
    const secrets = [this.#token() ?? ""];
    const raw = err instanceof Error ? err.message : String(err);
    const detail = scrubSecrets(raw, secrets).slice(0, 300);
    const where = `${req.method} ${req.path.split("?")[0]}`;
    this.#logger.debug({ codes, where, timedOut }, "upstream request failed");
    if (timedOut || codes.includes("UND_ERR_HEADERS_TIMEOUT") || codes.includes("UND_ERR_BODY_TIMEOUT")) {
      return new AoError(UpstreamErrors.AO_ERR_UPSTREAM_TIMEOUT, `upstream ${where}: no answer in time`, {
        httpStatus: 504,
        data: { sent: "unknown", codes },
      });
    }
    if (codes.some((c) => NOT_SENT_CODES.has(c))) {
      return new AoError(
        UpstreamErrors.AO_ERR_UPSTREAM_UNREACHABLE,
        `upstream ${where}: unreachable (${detail})`,
        {
          httpStatus: 502,
          data: { sent: false, codes },
        },
      );
    }
    if (req.signal?.aborted) {
      return new AoError(
        UpstreamErrors.AO_ERR_UPSTREAM_CONNECTION,
        `upstream ${where}: cancelled by the caller`,
        {
          httpStatus: 502,
          data: { sent: "unknown", codes, cancelled: true },
        },
      );
    }
    return new AoError(
      UpstreamErrors.AO_ERR_UPSTREAM_CONNECTION,
      `upstream ${where}: connection failed (${detail})`,
      {
        httpStatus: 502,
        data: { sent: "unknown", codes },
      },
    );
  }
}
