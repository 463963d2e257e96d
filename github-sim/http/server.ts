/**
 * The simulator's HTTP server: turns node requests into SimRequests and SimResponses back into
 * bytes. It answers both forms gh and octokit use: proxy form (absolute URI, `GET
 * http://api.github.localhost/repos/...` as sent through HTTP_PROXY) and plain paths.
 *
 * API links in answers use the base the client reached: X-Forwarded-Host/-Proto when present
 * (a gateway forwarding in reverse mode can ask for proxy-identical bodies), else the absolute
 * URI's origin, else the Host header. Requests to the web host (git smart-HTTP through the
 * proxy) get a plain 404 and are not counted. Bodies over the limit get 413 without being read;
 * unparseable request lines get 400; CONNECT (HTTPS tunnelling) is refused: nothing crashes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { restErrorBody } from "../../github/index.js";
import type { SimHandler, SimRequest, SimResponse } from "./types.js";

export interface SimServerOptions {
  readonly host: string;
  readonly port: number;
  /** Largest request body accepted, bytes. @defaultValue 10 MiB */
  readonly maxBodyBytes: number;
  /** Host name of the web side (no `api.`), e.g. github.localhost. */
  readonly webHost: string;
  readonly now: () => number;
  /** Headers for answers the server gives itself (400, 413): GitHub's rate-limit headers. */
  readonly errorHeaders: () => Record<string, string>;
}

export interface SimServer {
  readonly server: Server;
  readonly port: number;
  close(): Promise<void>;
}

function sendJson(
  res: ServerResponse,
  status: number,
  message: string,
  extra: Record<string, string>,
  close = false,
): void {
  const body = JSON.stringify(restErrorBody(message, { status }));
  res.writeHead(status, {
    ...extra,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    ...(close ? { connection: "close" } : {}),
  });
  res.end(body);
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | "too-large"> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        resolve("too-large");
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!done) resolve(Buffer.concat(chunks));
    });
    req.on("error", (error) => {
      if (!done) reject(error);
    });
  });
}

export function startSimServer(handler: SimHandler, options: SimServerOptions): Promise<SimServer> {
  let counter = 0;
  const sockets = new Set<Socket>();
  const server = createServer({ keepAliveTimeout: 30_000, requestTimeout: 120_000 }, (req, res) => {
    serve(req, res).catch(() => {
      // Writing the answer failed (client gone, invalid header value): drop the connection.
      res.destroy();
    });
  });

  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const receivedAt = options.now();
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://sim.invalid");
    } catch {
      sendJson(res, 400, "Bad Request", options.errorHeaders());
      return;
    }
    const absolute = /^https?:\/\//i.test(req.url ?? "");
    const host = absolute ? url.host : (firstHeader(req.headers.host) ?? "");
    if (host.split(":")[0]?.toLowerCase() === options.webHost) {
      // git smart-HTTP and web pages: not part of the API.
      sendJson(res, 404, "Not Found", {});
      req.resume();
      return;
    }
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > options.maxBodyBytes) {
      sendJson(res, 413, "Request Entity Too Large", options.errorHeaders(), true);
      req.resume();
      return;
    }
    const body = await readBody(req, options.maxBodyBytes).catch(() => "error" as const);
    if (body === "error") return;
    if (body === "too-large") {
      sendJson(res, 413, "Request Entity Too Large", options.errorHeaders(), true);
      return;
    }
    const forwardedHost = firstHeader(req.headers["x-forwarded-host"]);
    const proto =
      firstHeader(req.headers["x-forwarded-proto"]) ?? (absolute ? url.protocol.replace(":", "") : "http");
    const apiHost = forwardedHost ?? (host || `127.0.0.1:${(server.address() as AddressInfo).port}`);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
    }
    const request: SimRequest = {
      id: `5171:${(++counter).toString(16).toUpperCase().padStart(6, "0")}`,
      method: (req.method ?? "GET").toUpperCase(),
      path: url.pathname,
      query: url.searchParams,
      headers,
      body,
      apiBase: `${proto}://${apiHost}`,
      receivedAt,
    };
    const response: SimResponse = await handler(request);
    if (response.destroy) {
      req.socket.destroy();
      return;
    }
    if (res.destroyed) return;
    const payload = response.body === undefined ? Buffer.alloc(0) : Buffer.from(response.body);
    const out: Record<string, string | number> = { ...response.headers };
    if (response.status !== 304 && response.status !== 204) out["content-length"] = payload.length;
    res.writeHead(response.status, out);
    res.end(
      request.method === "HEAD" || response.status === 304 || response.status === 204 ? undefined : payload,
    );
  };

  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("connect", (_req, socket: Socket) => {
    socket.end("HTTP/1.1 405 Method Not Allowed\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
  });
  server.on("clientError", (_error, socket: Socket) => {
    if (socket.writable)
      socket.end("HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
    else socket.destroy();
  });

  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      const port = (server.address() as AddressInfo).port;
      resolve({
        server,
        port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            for (const socket of sockets) socket.destroy();
          }),
      });
    });
  });
}
