/**
 * Response constructors: JSON with GitHub's content type, and GitHub's REST error bodies.
 */
import { restErrorBody } from "../../github/index.js";
import type { ResponseOutcome, SimResponse } from "./types.js";

export const JSON_TYPE = "application/json; charset=utf-8";

export function jsonResponse(
  status: number,
  body: unknown,
  extra: { headers?: Record<string, string>; outcome?: ResponseOutcome } & Omit<
    Partial<SimResponse>,
    "headers" | "body" | "status" | "outcome"
  > = {},
): SimResponse {
  const { headers, ...rest } = extra;
  return {
    ...rest,
    status,
    headers: { "content-type": JSON_TYPE, ...headers },
    body: JSON.stringify(body),
    outcome: extra.outcome ?? (status >= 500 ? "server_error" : status >= 400 ? "client_error" : "ok"),
  };
}

export function errorResponse(
  status: number,
  message: string,
  options: {
    documentationUrl?: string;
    headers?: Record<string, string>;
    outcome?: ResponseOutcome;
    errors?: readonly unknown[];
  } = {},
): SimResponse {
  const body = restErrorBody(message, {
    ...(options.documentationUrl ? { documentationUrl: options.documentationUrl } : {}),
    ...(options.errors ? { errors: options.errors } : {}),
    status,
  });
  return jsonResponse(status, body, {
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.outcome ? { outcome: options.outcome } : {}),
  });
}
