/**
 * A small counting upstream for the client and queue tests: node:http on an ephemeral port,
 * routes answered by scripted replies (a sequence, the last repeated, or a function), every hit
 * recorded with its arrival time, and the number of requests in flight tracked so tests can
 * assert exact hit counts, pauses and concurrency caps. Unknown routes get GitHub's 404 shape.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { gzipSync } from "node:zlib";

export interface FakeReply {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  /** An object is sent as JSON. */
  readonly body?: string | Buffer | object;
  /** Wait this long before answering. */
  readonly delayMs?: number;
  /** Never answer (the client must time out). */
  readonly hang?: boolean;
  /** Destroy the socket after reading the request (connection reset). */
  readonly reset?: boolean;
  /** Send the body gzip-encoded. */
  readonly gzip?: boolean;
}

export interface Hit {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
  /** Date.now() when the request arrived. */
  readonly at: number;
}

export type FakeHandler = (hit: Hit, index: number) => FakeReply | Promise<FakeReply>;

export class FakeUpstream {
  readonly hits: Hit[] = [];
  inFlight = 0;
  maxInFlight = 0;
  connections = 0;
  readonly #routes = new Map<string, FakeHandler>();
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  url = "";

  private constructor() {
    this.#server = createServer((req, res) => {
      void this.#handle(req, res);
    });
    this.#server.on("connection", (socket) => {
      this.connections++;
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
  }

  static async start(): Promise<FakeUpstream> {
    const fake = new FakeUpstream();
    await new Promise<void>((resolve) => fake.#server.listen(0, "127.0.0.1", resolve));
    fake.url = `http://127.0.0.1:${(fake.#server.address() as AddressInfo).port}`;
    return fake;
  }

  /** Answers `METHOD /path` (path without query) with a function, or replies in order (last repeats). */
  route(method: string, path: string, reply: FakeHandler | FakeReply | readonly FakeReply[]): this {
    let handler: FakeHandler;
    if (typeof reply === "function") handler = reply;
    else if (Array.isArray(reply)) handler = (_hit, i) => reply[Math.min(i, reply.length - 1)] as FakeReply;
    else handler = () => reply as FakeReply;
    this.#routes.set(`${method} ${path}`, handler);
    return this;
  }

  count(method: string, path: string): number {
    return this.hits.filter((h) => h.method === method && h.path.split("?")[0] === path).length;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = req.url ?? "/";
    const hit: Hit = {
      method: req.method ?? "GET",
      path,
      headers: req.headers,
      body: Buffer.concat(chunks),
      at: Date.now(),
    };
    const key = `${hit.method} ${path.split("?")[0]}`;
    const index = this.hits.filter((h) => `${h.method} ${h.path.split("?")[0]}` === key).length;
    this.hits.push(hit);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const handler = this.#routes.get(key);
      const reply: FakeReply = handler
        ? await handler(hit, index)
        : { status: 404, body: { message: "Not Found", documentation_url: "https://docs.github.com/rest" } };
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (reply.hang) {
        await new Promise<void>((resolve) => res.on("close", () => resolve()));
        return;
      }
      if (reply.reset) {
        req.socket.destroy();
        return;
      }
      let body: Buffer =
        reply.body === undefined
          ? Buffer.alloc(0)
          : Buffer.isBuffer(reply.body)
            ? reply.body
            : typeof reply.body === "string"
              ? Buffer.from(reply.body)
              : Buffer.from(JSON.stringify(reply.body));
      const headers: Record<string, string> = {
        ...(typeof reply.body === "object" && !Buffer.isBuffer(reply.body)
          ? { "content-type": "application/json; charset=utf-8" }
          : {}),
        ...reply.headers,
      };
      if (reply.gzip) {
        body = gzipSync(body);
        headers["content-encoding"] = "gzip";
      }
      headers["content-length"] = String(body.length);
      res.writeHead(reply.status ?? 200, headers);
      res.end(body);
    } finally {
      this.inFlight--;
    }
  }
}
