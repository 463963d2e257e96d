/**
 * Builds the pipeline's GhRequest for an API call that did not arrive over HTTP (IPC `graphql` and
 * `rest`, the lifecycle poller): the same classification, priorities and deadlines as the gateway,
 * so every caller is cached, coalesced, batched and budgeted alike.
 */
import { randomUUID } from "node:crypto";
import type { ClassifyInput, RequestClass } from "./classify.js";
import type { Caller, GhRequest, GraphQLPayload, PriorityClass } from "./types.js";

export interface ApiRequestInput {
  readonly method: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly body?: Buffer | undefined;
  readonly graphql?: GraphQLPayload | undefined;
  readonly caller: Caller;
  readonly priority?: PriorityClass | undefined;
  readonly deadlineMs: number;
  readonly allowStale?: boolean | undefined;
}

export function buildApiRequest(
  input: ApiRequestInput,
  classify: (input: ClassifyInput) => RequestClass,
): GhRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower !== "authorization" && lower !== "host" && lower !== "content-length") headers[lower] = value;
  }
  if (input.graphql && !headers["content-type"]) headers["content-type"] = "application/json";
  const method = input.method.toUpperCase();
  const body = input.graphql
    ? Buffer.from(
        JSON.stringify({
          query: input.graphql.query,
          variables: input.graphql.variables,
          ...(input.graphql.operationName ? { operationName: input.graphql.operationName } : {}),
        }),
      )
    : input.body;
  const classification = classify({ method, path: input.path, headers, graphql: input.graphql });
  const isWrite = classification.kind === "rest-write" || classification.kind === "graphql-mutation";
  const now = Date.now();
  return {
    id: randomUUID(),
    method,
    path: input.path,
    headers,
    body,
    graphql: input.graphql,
    caller: input.caller,
    classification,
    priority: input.priority ?? (isWrite ? "write" : "interactive"),
    deadlineAt: now + input.deadlineMs,
    allowStale: input.allowStale ?? false,
    receivedAt: now,
  };
}
