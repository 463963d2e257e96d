/**
 * The only way a `--target` run reaches a real GitHub: a local forwarding proxy that holds the
 * PAT (arms and brokers get a dummy token; the PAT is added here, on the upstream side only) and
 * passes every request through the SpendCap first. Past the cap it answers 429 and sends nothing
 * more, so a bench run can never spend more than `--max-points`. It also counts what it forwarded,
 * standing in for the simulator's accounting.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { observationFromHeaders, type SpendCap } from "./core/spend-cap.js";
import type { CostEstimator } from "./cost-estimator.js";
import type { HttpTransport } from "./http-transport.js";

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "host",
  "authorization",
  "proxy-connection",
]);

export interface CappedUpstreamOptions {
  readonly target: string;
  /** Read when a request is forwarded; never stored elsewhere or logged. */
  readonly token: () => string;
  readonly cap: SpendCap;
  readonly transport: HttpTransport;
  readonly costs: CostEstimator;
}

export interface CappedCounts {
  readonly requests: number;
  readonly notModified: number;
  readonly refused: number;
}

export class CappedUpstream {
  readonly #o: CappedUpstreamOptions;
  #server: Server | undefined;
  #requests = 0;
  #notModified = 0;
  #refused = 0;

  constructor(options: CappedUpstreamOptions) {
    this.#o = options;
  }

  counts(): CappedCounts {
    return { requests: this.#requests, notModified: this.#notModified, refused: this.#refused };
  }

  async start(): Promise<string> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks);
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = String(v);
        const path = req.url ?? "/";
        const method = req.method ?? "GET";
        let resource: "graphql" | "core" = "core";
        let cost = path.startsWith("/rate_limit") ? 0 : 1;
        if (path === "/graphql") {
          resource = "graphql";
          try {
            const payload = JSON.parse(body.toString("utf8")) as {
              query?: string;
              variables?: Record<string, unknown>;
            };
            cost = this.#o.costs.graphqlPoints(payload.query ?? "", payload.variables ?? {});
          } catch {
            cost = 1;
          }
        }
        if (cost > 0 && !this.#o.cap.allow(resource, cost)) {
          this.#refused++;
          res.writeHead(429, { "content-type": "application/json", "x-ao-bench-cap": "reached" });
          res.end(
            JSON.stringify({
              message: "ao-broker bench: the --max-points cap is reached; nothing more is sent to the target",
            }),
          );
          return;
        }
        this.#requests++;
        this.#o.transport
          .send({
            url: `${this.#o.target}${path}`,
            method,
            headers: { ...headers, authorization: `token ${this.#o.token()}` },
            body: body.length > 0 ? body.toString("utf8") : undefined,
          })
          .then((answer) => {
            if (cost > 0) this.#o.cap.settle(observationFromHeaders(answer.headers));
            else {
              const o = observationFromHeaders(answer.headers);
              if (o) this.#o.cap.observe(o);
            }
            if (answer.status === 304) this.#notModified++;
            const out: Record<string, string> = {};
            for (const [k, v] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(k)) out[k] = v;
            res.writeHead(answer.status, { ...out, "content-length": String(answer.body.length) });
            res.end(answer.body);
          })
          .catch(() => {
            if (cost > 0) this.#o.cap.settle(undefined);
            res.writeHead(502, { "content-type": "application/json" });
            res.end(JSON.stringify({ message: "ao-broker bench: the target did not answer" }));
          });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.#server = server;
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
