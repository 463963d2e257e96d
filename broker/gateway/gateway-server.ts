/**
 * The GitHub-compatible HTTP front of the broker (node:http). One job per step, in order:
 * resolve the target (proxy / reverse / blob / local / forbidden) → read the body within the size
 * limit → authenticate the broker-issued token (never the PAT: it exists only upstream) →
 * classify → refuse writes on read-only tokens → run the pipeline → answer with GitHub's headers
 * plus x-ao-broker-cache, x-ao-broker-cost and the SESSION's view of x-ratelimit-*.
 * Malformed HTTP gets a 400 from Node's parser hook; nothing a client sends can throw out of here.
 * The token is checked as soon as the headers are in, before any body is read: an unknown caller
 * gets GitHub's 401 and the socket is closed unread. Connection bounds, eviction order and the
 * header / idle timeouts are connection-bounds.ts's (decision 0012).
 * close() stops accepting, lets in-flight requests finish (the drain), then ends idle sockets.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { AoError, type Logger } from "../../common/index.js";
import type { RateLimitResource, RateLimitSnapshot } from "../../github/index.js";
import { GATEWAY_DRAIN_MS } from "../broker-context.js";
import { BrokerErrors } from "../errors.js";
import { buildApiRequest } from "../pipeline/api-request.js";
import type { ClassifyInput, RequestClass } from "../pipeline/classify.js";
import { withoutHopByHop } from "../pipeline/http-headers.js";
import type { Caller, GhRequest, GhResponse, GraphQLPayload, Handler } from "../pipeline/types.js";
import {
  brokerRequestId,
  coherentView,
  isRateLimitPath,
  rateHeaders,
  rewriteRateLimitBody,
} from "./answer-headers.js";
import { ConnectionBounds, type ConnectionCounts } from "./connection-bounds.js";
import {
  type LocalRoute,
  resolveTarget,
  rewriteBodyUrls,
  rewriteUpstreamUrls,
} from "./core/request-target.js";
import { type ErrorReply, errorReply, githubError } from "./error-reply.js";
import { GATEWAY_DEFAULTS } from "./gateway-settings.js";
import { isAllowedMetricsHost } from "./metrics-host.js";
import {
  BodyTooLarge,
  bearer,
  isLoopback,
  lowerHeaders,
  parseGraphQLBody,
  readBody,
} from "./read-request.js";

export interface GatewayEvent {
  readonly request: GhRequest;
  readonly response?: GhResponse | undefined;
  readonly status: number;
  readonly error?: unknown;
  readonly durationMs: number;
}

/** Connection bounds (decision 0012); the defaults fit a 1024 file-descriptor limit. */
export interface GatewayConnectionLimits {
  /** Sockets open at once; one more evicts the least valuable (connection-bounds.ts). @defaultValue 512 */
  readonly maxConnections?: number | undefined;
  /** Time to complete a request's headers, counted from connect or the last answer. @defaultValue 10000 */
  readonly headerTimeoutMs?: number | undefined;
  /** How long an authenticated keep-alive connection may wait for its next request. @defaultValue 65000 */
  readonly idleTimeoutMs?: number | undefined;
}

export interface GatewayServerOptions {
  readonly host: string;
  readonly port: number;
  readonly publicHost: string;
  readonly blobHosts: readonly string[];
  readonly maxBodyBytes: number;
  readonly connections?: GatewayConnectionLimits | undefined;
  readonly defaultDeadlineMs: number;
  readonly allowRemoteMetrics: boolean;
  /** Tell the upstream which host the client used (X-Forwarded-Host/-Proto). @defaultValue false */
  readonly forwardClientHost?: boolean | undefined;
  /** The upstream base URL, for rewriting Link and Location headers to the client's base. */
  readonly upstreamBase: string;
  readonly pipeline: Handler;
  readonly authenticate: (token: string) => Promise<{ caller: Caller } | undefined>;
  readonly classify: (input: ClassifyInput) => RequestClass;
  readonly sessionView: (
    sessionId: string,
    resource: RateLimitResource,
    weight: number,
  ) => RateLimitSnapshot | undefined;
  readonly logger: Logger;
  /** Runs the pipeline for one request inside whatever instrumentation the broker wants (spans). */
  readonly instrument?:
    | ((request: GhRequest, run: () => Promise<GhResponse>) => Promise<GhResponse>)
    | undefined;
  /** Called once per API request after it is answered (stats, traces, AO trace rows). */
  readonly observe?: ((event: GatewayEvent) => void) | undefined;
  readonly metrics?: (() => Promise<string>) | undefined;
  readonly webhook?:
    | ((input: {
        headers: Readonly<Record<string, string>>;
        rawBody: Buffer;
      }) => Promise<{ status: number; body: unknown }>)
    | undefined;
  /** The shim's report that a gh invocation ended (exit code, duration), authenticated by its token. */
  readonly invocationFinished?:
    | ((
        caller: Caller,
        report: { exitCode: number; durationMs: number; signal?: string | undefined },
      ) => Promise<void>)
    | undefined;
  readonly blobFetch?:
    | ((url: string) => Promise<{ status: number; headers: Record<string, string>; body: Buffer }>)
    | undefined;
}

function formatCost(cost: number): string {
  return Number.isInteger(cost) ? String(cost) : cost.toFixed(3).replace(/0+$/, "");
}

export class GatewayServer {
  readonly #options: GatewayServerOptions;
  readonly #server: Server;
  readonly #bounds: ConnectionBounds;
  #inFlight = 0;
  readonly #rewritten = new WeakMap<Buffer, Map<string, Buffer>>();
  #draining = false;
  #drained: (() => void) | undefined;

  constructor(options: GatewayServerOptions) {
    this.#options = options;
    const limits = {
      maxConnections: options.connections?.maxConnections ?? GATEWAY_DEFAULTS.maxConnections,
      headerTimeoutMs: options.connections?.headerTimeoutMs ?? GATEWAY_DEFAULTS.headerTimeoutMs,
      idleTimeoutMs: options.connections?.idleTimeoutMs ?? GATEWAY_DEFAULTS.idleTimeoutMs,
    };
    const requestTimeout = 120_000;
    this.#server = createServer(
      {
        keepAliveTimeout: limits.idleTimeoutMs,
        // Node's own check runs only every connectionsCheckingInterval; ConnectionBounds' sweep is
        // the one that holds to the setting. Node requires headersTimeout <= requestTimeout.
        headersTimeout: Math.min(limits.headerTimeoutMs, requestTimeout),
        requestTimeout,
      },
      (req, res) => {
        void this.#handle(req, res);
      },
    );
    this.#bounds = new ConnectionBounds({ ...limits, logger: options.logger });
    this.#bounds.attach(this.#server);
    // Accept errors (EMFILE when something else spent the descriptors) must not end the daemon:
    // without a listener an 'error' event throws. libuv keeps accepting once descriptors free up.
    this.#server.on("error", (error: NodeJS.ErrnoException) => {
      if (this.#server.listening) this.#options.logger.warn({ err: error }, "gateway accept failed");
    });
    this.#server.on("clientError", (_error, socket) => {
      if (socket.writable)
        socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      else socket.destroy();
    });
    this.#server.on("connect", (_req, socket) => {
      const body = JSON.stringify({
        message: "CONNECT is not supported: ao-broker is not an open proxy",
        status: "403",
      });
      socket.end(
        `HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => {
        reject(
          error.code === "EADDRINUSE"
            ? new AoError(
                BrokerErrors.AO_ERR_ALREADY_RUNNING,
                `the gateway address ${this.#options.host}:${this.#options.port} is in use (another broker?)`,
              )
            : error,
        );
      };
      this.#server.once("error", onError);
      this.#server.listen(this.#options.port, this.#options.host, () => {
        this.#server.off("error", onError);
        resolve();
      });
    });
    return this.url;
  }

  get url(): string {
    const address = this.#server.address() as AddressInfo | null;
    if (!address) return "";
    const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}`;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo | null)?.port ?? 0;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Open connections and how many were evicted, refused at the bound, or timed out. */
  get connectionCounts(): ConnectionCounts {
    return this.#bounds.counts;
  }

  /** Stops accepting, waits for in-flight requests (up to graceMs), then closes every socket. */
  async close(graceMs = GATEWAY_DRAIN_MS): Promise<void> {
    this.#draining = true;
    this.#bounds.stop();
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeIdleConnections();
    if (this.#inFlight > 0) {
      await Promise.race([
        new Promise<void>((resolve) => {
          this.#drained = resolve;
        }),
        new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref()),
      ]);
    }
    this.#server.closeAllConnections();
    await closed;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.#inFlight += 1;
    const socket = req.socket;
    this.#bounds.requestStarted(socket);
    res.once("close", () => this.#bounds.requestFinished(socket));
    try {
      await this.#route(req, res);
    } catch (error) {
      this.#options.logger.error({ err: error }, "gateway handler failed");
      if (!res.headersSent) this.#send(res, githubError(500, "ao-broker internal error"));
      else res.destroy();
    } finally {
      this.#inFlight -= 1;
      if (this.#inFlight === 0) this.#drained?.();
    }
  }

  #send(
    res: ServerResponse,
    reply: ErrorReply | { status: number; headers: Record<string, string>; body: Buffer },
  ): void {
    if (res.headersSent) return;
    const headers: Record<string, string> = { ...reply.headers, "content-length": String(reply.body.length) };
    if (this.#draining) headers.connection = "close";
    res.writeHead(reply.status, headers);
    res.end(reply.body);
  }

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const o = this.#options;
    const method = (req.method ?? "GET").toUpperCase();
    const target = resolveTarget({
      method,
      url: req.url ?? "/",
      hostHeader: req.headers.host,
      publicHost: o.publicHost,
      blobHosts: o.blobHosts,
    });
    if (target.kind === "forbidden") {
      req.resume();
      this.#send(res, githubError(target.status, target.message));
      return;
    }
    if (this.#draining) {
      req.resume();
      this.#send(res, githubError(503, "ao-broker is shutting down", { "retry-after": "5" }));
      return;
    }
    const headers = lowerHeaders(req);
    // The token before the body: an unknown caller's body is never read (issue 17).
    let identity: { caller: Caller } | undefined;
    if (target.kind !== "local" || target.route === "invocation-finish") {
      identity = await this.#authenticate(req, res, headers);
      if (!identity) return;
    }
    let body: Buffer;
    try {
      body = await readBody(req, o.maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        this.#send(res, {
          ...githubError(413, `Request body too large: the limit is ${o.maxBodyBytes} bytes`),
          headers: { "content-type": "application/json; charset=utf-8", connection: "close" },
        });
      } else {
        res.destroy();
      }
      return;
    }
    if (target.kind === "local") {
      await this.#local(target.route, req, res, headers, body, identity);
      return;
    }
    if (!identity) return; // unreachable: every non-local target was authenticated above

    if (target.kind === "blob") {
      if (!o.blobFetch) {
        this.#send(res, githubError(403, "artifact and log downloads are not enabled on this broker"));
        return;
      }
      const blob = await o.blobFetch(target.url);
      this.#send(res, { status: blob.status, headers: withoutHopByHop(blob.headers), body: blob.body });
      return;
    }

    let graphql: GraphQLPayload | undefined;
    const isGraphQL =
      method === "POST" && (target.path === "/graphql" || target.path.startsWith("/graphql?"));
    if (isGraphQL) {
      const parsed = parseGraphQLBody(body);
      if ("reply" in parsed) {
        this.#send(res, parsed.reply);
        return;
      }
      graphql = parsed.payload;
    }
    const caller = identity.caller;
    let request: GhRequest;
    try {
      const client = o.forwardClientHost ? new URL(target.clientBase) : undefined;
      request = buildApiRequest(
        {
          method,
          path: target.path,
          headers,
          body,
          graphql,
          caller,
          deadlineMs: o.defaultDeadlineMs,
          forwardedClient: client
            ? { host: client.host, proto: client.protocol.replace(":", "") }
            : undefined,
        },
        o.classify,
      );
    } catch (error) {
      if (!(error instanceof AoError)) throw error; // the refusal of a write on a read-only session
      this.#send(res, errorReply(error, { graphql: isGraphQL }));
      return;
    }
    const classification = request.classification;
    const now = request.receivedAt;

    let response: GhResponse | undefined;
    let reply: { status: number; headers: Record<string, string>; body: Buffer };
    let failure: unknown;
    try {
      response = o.instrument
        ? await o.instrument(request, () => o.pipeline(request))
        : await o.pipeline(request);
      reply = this.#answer(request, response, target.clientBase);
    } catch (error) {
      failure = error;
      const mapped = errorReply(error, { graphql: isGraphQL });
      const view = o.sessionView(caller.sessionId, classification.resource, caller.weight);
      reply = {
        status: mapped.status,
        headers: {
          ...(view ? this.#rateHeaders(view) : {}),
          ...mapped.headers,
          "x-ao-broker-cache": "BYPASS",
          "x-ao-broker-cost": "0",
        },
        body: mapped.body,
      };
      if (mapped.status >= 500) o.logger.warn({ err: error, requestId: request.id }, "request failed");
    }
    this.#send(res, reply);
    o.observe?.({ request, response, status: reply.status, error: failure, durationMs: Date.now() - now });
  }

  /**
   * Resolves the request's broker token from its headers alone. Without a valid one the caller
   * gets GitHub's 401 and `connection: close`: Node then closes the socket once the answer is out,
   * without reading the body (a few socket buffers at most reach the kernel, none the broker).
   */
  async #authenticate(
    req: IncomingMessage,
    res: ServerResponse,
    headers: Record<string, string>,
  ): Promise<{ caller: Caller } | undefined> {
    const token = bearer(headers.authorization);
    let refusal: ErrorReply;
    if (!token) refusal = githubError(401, "Requires authentication");
    else {
      try {
        const identity = await this.#options.authenticate(token);
        if (identity) {
          this.#bounds.authenticated(req.socket);
          return identity;
        }
        refusal = githubError(401, "Bad credentials");
      } catch (error) {
        refusal = errorReply(error, { graphql: false });
      }
    }
    const complete = req.complete;
    this.#send(
      res,
      complete ? refusal : { ...refusal, headers: { ...refusal.headers, connection: "close" } },
    );
    return undefined;
  }

  /**
   * Body URL rewriting, memoised per answer body: a cache hit hands out the same Buffer every time,
   * so its rewritten form is computed once per client base (and collected with the answer).
   */
  #rewrite(body: Buffer, clientBase: string): Buffer {
    let byBase = this.#rewritten.get(body);
    const known = byBase?.get(clientBase);
    if (known) return known;
    const rewritten = rewriteBodyUrls(body, this.#options.upstreamBase, clientBase);
    if (!byBase) {
      byBase = new Map();
      this.#rewritten.set(body, byBase);
    }
    if (byBase.size < 8) byBase.set(clientBase, rewritten);
    return rewritten;
  }

  /** docs/decisions/0010: GitHub's window as this session sees it (answer-headers.ts). */
  #rateHeaders(view: RateLimitSnapshot, served = false): Record<string, string> {
    return rateHeaders(coherentView(view, served));
  }

  #answer(
    request: GhRequest,
    response: GhResponse,
    clientBase: string,
  ): { status: number; headers: Record<string, string>; body: Buffer } {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(withoutHopByHop(response.headers))) {
      if (name.startsWith("x-ratelimit-")) continue;
      headers[name] =
        name === "link" || name === "location"
          ? rewriteUpstreamUrls(value, this.#options.upstreamBase, clientBase)
          : value;
    }
    const view = this.#options.sessionView(
      request.caller.sessionId,
      response.resource,
      request.caller.weight,
    );
    const served = response.status < 400;
    if (view) Object.assign(headers, this.#rateHeaders(view, served));
    else {
      for (const [name, value] of Object.entries(response.headers))
        if (name.startsWith("x-ratelimit-")) headers[name] = value;
    }
    headers["x-github-request-id"] ??= brokerRequestId(request.id);
    headers["x-ao-broker-cache"] = response.cache;
    headers["x-ao-broker-cost"] = formatCost(response.cost);
    // How long the broker held this request on purpose (batching window, budget, upstream queue).
    headers["x-ao-broker-wait-ms"] = String(Math.round(response.waitedMs ?? 0));
    let body = /json/.test(headers["content-type"] ?? "")
      ? this.#rewrite(response.body, clientBase)
      : response.body;
    if (view && response.status === 200 && request.method === "GET" && isRateLimitPath(request.path)) {
      const caller = request.caller;
      body = rewriteRateLimitBody(body, (resource) => {
        const bucket = this.#options.sessionView(caller.sessionId, resource, caller.weight);
        return bucket ? coherentView(bucket, true) : undefined;
      });
    }
    return { status: response.status, headers, body };
  }

  async #invocationFinish(
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    identity: { caller: Caller } | undefined,
  ): Promise<void> {
    if (req.method !== "POST") {
      this.#send(res, githubError(404, "Not Found"));
      return;
    }
    if (!identity?.caller.invocationId) {
      this.#send(res, githubError(401, "Bad credentials"));
      return;
    }
    let report: { exitCode?: unknown; durationMs?: unknown; signal?: unknown };
    try {
      report = JSON.parse(body.toString("utf8")) as typeof report;
    } catch {
      this.#send(res, githubError(400, "Problems parsing JSON"));
      return;
    }
    if (
      !Number.isInteger(report.exitCode) ||
      typeof report.durationMs !== "number" ||
      report.durationMs < 0
    ) {
      this.#send(
        res,
        githubError(422, "expected {exitCode: integer, durationMs: number >= 0, signal?: string}"),
      );
      return;
    }
    await this.#options.invocationFinished?.(identity.caller, {
      exitCode: report.exitCode as number,
      durationMs: report.durationMs,
      signal: typeof report.signal === "string" ? report.signal.slice(0, 32) : undefined,
    });
    this.#send(res, { status: 204, headers: {}, body: Buffer.alloc(0) });
  }

  async #local(
    route: LocalRoute,
    req: IncomingMessage,
    res: ServerResponse,
    headers: Record<string, string>,
    body: Buffer,
    identity: { caller: Caller } | undefined,
  ): Promise<void> {
    const o = this.#options;
    if (route === "health") {
      this.#send(res, {
        status: 200,
        headers: { "content-type": "application/json" },
        body: Buffer.from('{"ok":true}'),
      });
      return;
    }
    if (route === "invocation-finish") {
      await this.#invocationFinish(req, res, body, identity);
      return;
    }
    if (route === "metrics") {
      if (!o.metrics || req.method !== "GET") {
        this.#send(res, githubError(404, "Not Found"));
        return;
      }
      if (!o.allowRemoteMetrics && !isLoopback(req.socket.remoteAddress)) {
        this.#send(
          res,
          githubError(403, "/metrics is served to loopback peers only (gateway.allowRemoteMetrics)"),
        );
        return;
      }
      if (!isAllowedMetricsHost(req.headers.host, [o.host, o.publicHost ?? ""])) {
        this.#send(
          res,
          githubError(421, "/metrics answers only a loopback Host or the listen host (DNS rebinding guard)"),
        );
        return;
      }
      const text = await o.metrics();
      this.#send(res, {
        status: 200,
        headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
        body: Buffer.from(text),
      });
      return;
    }
    if (!o.webhook || req.method !== "POST") {
      this.#send(res, githubError(404, "Not Found"));
      return;
    }
    const result = await o.webhook({ headers, rawBody: body });
    this.#send(res, {
      status: result.status,
      headers: { "content-type": "application/json; charset=utf-8" },
      body: Buffer.from(JSON.stringify(result.body ?? {})),
    });
  }
}
