/**
 * Small HTTP helpers for the simulator's integration tests: GraphQL and REST calls in plain form
 * (fetch against sim.url) and in proxy form (an absolute-URI request line, as gh sends it
 * through HTTP_PROXY), returning status, lower-case headers and the parsed body.
 */
import { request as httpRequest } from "node:http";
import type { RunningSimulator } from "../../../github-sim/index.js";

export interface Reply<T = unknown> {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly text: string;
  readonly json: T;
}

function parse<T>(text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined as T;
  }
}

export async function rest<T = unknown>(
  sim: RunningSimulator,
  path: string,
  init: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    token?: string | null | undefined;
  } = {},
): Promise<Reply<T>> {
  const token = init.token === undefined ? sim.token : init.token;
  const res = await fetch(`${sim.url}${path}`, {
    method: init.method ?? "GET",
    redirect: "manual",
    headers: { ...(token ? { authorization: `token ${token}` } : {}), ...init.headers },
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: Object.fromEntries(res.headers), text, json: parse<T>(text) };
}

export interface GraphQLBody {
  readonly data?: Record<string, unknown> | null;
  readonly errors?: readonly {
    type?: string;
    message: string;
    path?: unknown[];
    extensions?: Record<string, unknown>;
  }[];
}

export function gql(
  sim: RunningSimulator,
  query: string,
  variables: Record<string, unknown> = {},
  extra: { operationName?: string; token?: string | null } = {},
): Promise<Reply<GraphQLBody>> {
  return rest<GraphQLBody>(sim, "/graphql", {
    method: "POST",
    body: JSON.stringify({
      query,
      variables,
      ...(extra.operationName ? { operationName: extra.operationName } : {}),
    }),
    ...(extra.token !== undefined ? { token: extra.token } : {}),
  });
}

/** A request in proxy form: `METHOD http://api.github.localhost/... HTTP/1.1` sent to the simulator. */
export function proxied<T = unknown>(
  sim: RunningSimulator,
  method: string,
  absoluteUrl: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<Reply<T>> {
  const url = new URL(absoluteUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: sim.port,
        method,
        path: absoluteUrl,
        headers: { host: url.host, authorization: `token ${sim.token}`, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const out: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
          resolve({ status: res.statusCode ?? 0, headers: out, text, json: parse<T>(text) });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
