/**
 * The bench's HTTP client: undici with a keep-alive pool large enough for hundreds of sessions
 * (gh itself opens one connection per process; connection set-up is not what is being measured).
 * Answers are read whole; latency is wall-clock from send to last byte.
 */
import { Agent, request } from "undici";

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly latencyMs: number;
}

export interface HttpRequestInput {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | undefined;
}

export class HttpTransport {
  readonly #agent: Agent;

  constructor(options: { connections?: number } = {}) {
    this.#agent = new Agent({
      connections: options.connections ?? 512,
      keepAliveTimeout: 30_000,
      pipelining: 1,
    });
  }

  async send(input: HttpRequestInput): Promise<HttpAnswer> {
    const started = performance.now();
    const response = await request(input.url, {
      method: input.method as "GET",
      headers: input.headers,
      dispatcher: this.#agent,
      ...(input.body === undefined ? {} : { body: input.body }),
    });
    const body = Buffer.from(await response.body.arrayBuffer());
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined)
        headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value);
    }
    return { status: response.statusCode, headers, body, latencyMs: performance.now() - started };
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}

export function parseJson(body: Buffer, headers: Readonly<Record<string, string>>): unknown {
  if (body.length === 0) return undefined;
  const type = headers["content-type"] ?? "";
  if (!type.includes("json") && body[0] !== 0x7b && body[0] !== 0x5b) return undefined;
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}
