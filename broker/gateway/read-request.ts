/**
 * Reading a gateway request: headers, the bearer token, the body within its size limit, and a
 * GraphQL body's JSON — each failure turned into the answer GitHub would give, never a throw.
 */
import type { IncomingMessage } from "node:http";
import type { GraphQLPayload } from "../pipeline/types.js";
import { type ErrorReply, githubError } from "./error-reply.js";

export function lowerHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

export function bearer(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^(?:token|bearer)\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

export function isLoopback(address: string | undefined): boolean {
  return !!address && (address === "::1" || address.startsWith("127.") || address === "::ffff:127.0.0.1");
}

export class BodyTooLarge extends Error {}

/**
 * Reads a body up to `limit` bytes. Past the limit it stops keeping data but reads (and discards)
 * the rest, and only then rejects, so the 413 is written after the client has finished sending:
 * answering while the body is still arriving, then closing, makes the kernel reset the connection
 * and the client may never read the 413 (seen under load in the fuzz run). A body declared, or
 * sent, far beyond the limit (over 4 × limit + 64 KiB) is refused at once / cut off instead.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const cutOff = limit * 4 + 65_536;
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > cutOff) {
      reject(new BodyTooLarge());
      req.resume();
      return;
    }
    let tooLarge = declared > limit;
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > cutOff) {
        req.destroy();
        return;
      }
      if (tooLarge) return;
      if (size > limit) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => (tooLarge ? reject(new BodyTooLarge()) : resolve(Buffer.concat(chunks))));
    req.on("error", reject);
  });
}

export type GraphQLParse = { payload: GraphQLPayload } | { reply: ErrorReply };

export function parseGraphQLBody(body: Buffer): GraphQLParse {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    return { reply: githubError(400, "Problems parsing JSON") };
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    return { reply: githubError(400, "Problems parsing JSON") };
  }
  const record = parsed as { query?: unknown; variables?: unknown; operationName?: unknown };
  if (typeof record.query !== "string" || record.query.trim() === "") {
    return {
      reply: {
        status: 200,
        headers: { "content-type": "application/json; charset=utf-8" },
        body: Buffer.from(
          JSON.stringify({
            errors: [{ message: "A query attribute must be specified and must be a string." }],
          }),
        ),
      },
    };
  }
  const variables = record.variables ?? {};
  if (variables === null || typeof variables !== "object" || Array.isArray(variables)) {
    return { reply: githubError(400, "Variables are invalid JSON.") };
  }
  return {
    payload: {
      query: record.query,
      variables: variables as Record<string, unknown>,
      operationName: typeof record.operationName === "string" ? record.operationName : undefined,
    },
  };
}
