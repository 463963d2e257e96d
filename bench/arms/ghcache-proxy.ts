/**
 * The `proxy` arm's server: a small ghproxy-style reverse proxy in front of the simulator (policy:
 * core/ghcache-policy.ts). Clients talk to it exactly as to GitHub (plain paths, their own token);
 * it adds `x-cache-mode` to every answer. In memory, one process, no budgets: what prow runs in
 * front of GitHub for its bots, reduced to what saves tokens.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type GhcacheMode,
  ghcacheKey,
  resolveUpstream,
  type StoredAnswer,
  upstreamHeaders,
} from "../core/ghcache-policy.js";
import type { HttpAnswer, HttpTransport } from "../http-transport.js";

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "host",
  "proxy-connection",
  "upgrade",
]);

function strip(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

export interface GhcacheProxyStats {
  readonly requests: number;
  readonly byMode: Readonly<Record<string, number>>;
}

export class GhcacheProxy {
  readonly #upstream: string;
  readonly #transport: HttpTransport;
  readonly #store = new Map<string, StoredAnswer>();
  readonly #inFlight = new Map<string, Promise<HttpAnswer>>();
  readonly #byMode = new Map<GhcacheMode, number>();
  #server: Server | undefined;
  #requests = 0;

  constructor(options: { upstream: string; transport: HttpTransport }) {
    this.#upstream = options.upstream;
    this.#transport = options.transport;
  }

  async start(): Promise<string> {
    const server = createServer((req, res) => {
      this.#handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
        res.end(JSON.stringify({ message: "proxy: upstream failed" }));
      });
    });
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.#server = server;
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  stats(): GhcacheProxyStats {
    return { requests: this.#requests, byMode: Object.fromEntries(this.#byMode) };
  }

  async close(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name))
        headers[name] = Array.isArray(value) ? value.join(", ") : value;
    }
    const method = req.method ?? "GET";
    const path = req.url ?? "/";
    this.#requests++;
    const key = ghcacheKey(method, path, headers);
    if (!key) {
      const answer = await this.#transport.send({
        url: `${this.#upstream}${path}`,
        method,
        headers,
        body: body.length > 0 ? body.toString("utf8") : undefined,
      });
      this.#reply(res, answer.status, strip(answer.headers), answer.body, "BYPASS");
      return;
    }
    const stored = this.#store.get(key);
    let shared = this.#inFlight.get(key);
    const coalesced = shared !== undefined;
    if (!shared) {
      shared = this.#transport.send({
        url: `${this.#upstream}${path}`,
        method,
        headers: upstreamHeaders(headers, stored),
      });
      this.#inFlight.set(key, shared);
      shared.finally(() => this.#inFlight.delete(key)).catch(() => undefined);
    }
    const upstream = await shared;
    const resolution = resolveUpstream({
      clientIfNoneMatch: headers["if-none-match"],
      stored,
      upstream: { status: upstream.status, headers: strip(upstream.headers), body: upstream.body },
    });
    if (!coalesced) {
      if (resolution.store === null) this.#store.delete(key);
      else if (resolution.store) this.#store.set(key, resolution.store);
    }
    this.#reply(
      res,
      resolution.answer.status,
      resolution.answer.headers,
      resolution.answer.body,
      coalesced ? "COALESCED" : resolution.mode,
    );
  }

  #reply(
    res: ServerResponse,
    status: number,
    headers: Record<string, string>,
    body: Buffer,
    mode: GhcacheMode,
  ): void {
    this.#byMode.set(mode, (this.#byMode.get(mode) ?? 0) + 1);
    res.writeHead(status, { ...headers, "x-cache-mode": mode, "content-length": String(body.length) });
    res.end(body);
  }
}
