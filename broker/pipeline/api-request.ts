/**
 * The one builder of the pipeline's GhRequest, for every edge: the gateway (HTTP), IPC `graphql`
 * and `rest`, and the lifecycle poller. Every caller gets the same header rules, the same
 * classification, priorities and deadlines, and the same read-only refusal, so a call is cached,
 * coalesced, batched and budgeted alike whichever way it came in (docs/architecture.md, "One
 * request model"; decision 0017).
 *
 * Header rules, in order: names lower-cased; the broker's own control headers
 * (`x-ao-broker-priority`, `x-ao-broker-allow-stale`) read, then dropped; hop-by-hop and
 * credential headers dropped (http-headers.ts: authorization, host, content-length, cookie, …);
 * `x-forwarded-*` dropped, then set from `forwardedClient` when the broker is told to pass the
 * client's host on; `content-type: application/json` added to a GraphQL call that has none.
 */
import { randomUUID } from "node:crypto";
import { AoError } from "../../common/index.js";
import { BrokerErrors } from "../errors.js";
import type { ClassifyInput, RequestClass } from "./classify.js";
import { isHopByHop } from "./http-headers.js";
import type { Caller, GhRequest, GraphQLPayload, PriorityClass } from "./types.js";

export interface ApiRequestInput {
  readonly method: string;
  readonly path: string;
  /** As the caller sent them, any case. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** The bytes the caller sent; without them a GraphQL payload is serialised. */
  readonly body?: Buffer | undefined;
  readonly graphql?: GraphQLPayload | undefined;
  readonly caller: Caller;
  /** An explicit priority (IPC parameter, the poller); else the header's, else by kind. */
  readonly priority?: PriorityClass | undefined;
  readonly deadlineMs: number;
  /** An explicit choice (IPC parameter); else the `x-ao-broker-allow-stale` header. */
  readonly allowStale?: boolean | undefined;
  /** Set `x-forwarded-host`/`-proto` to the host the client used (`upstream.forwardClientHost`). */
  readonly forwardedClient?: { readonly host: string; readonly proto: string } | undefined;
}

/** The broker's control headers: instructions to the broker, never forwarded. */
const PRIORITY_HEADER = "x-ao-broker-priority";
const ALLOW_STALE_HEADER = "x-ao-broker-allow-stale";

export const READ_ONLY_MESSAGE = "This ao-broker session is read-only: writes are refused";

/** Forwardable headers of a call, and what the broker's control headers asked for. */
export function requestHeaders(
  raw: Readonly<Record<string, string>>,
  forwardedClient?: { readonly host: string; readonly proto: string },
): { headers: Record<string, string>; priority: string | undefined; allowStale: boolean } {
  const headers: Record<string, string> = {};
  let priority: string | undefined;
  let allowStale = false;
  for (const [name, value] of Object.entries(raw)) {
    const lower = name.toLowerCase();
    if (lower === PRIORITY_HEADER) priority = value;
    else if (lower === ALLOW_STALE_HEADER) allowStale = value === "1" || value === "true";
    else if (!isHopByHop(lower) && !lower.startsWith("x-forwarded-") && !lower.startsWith("x-ao-broker-"))
      headers[lower] = value;
  }
  if (forwardedClient) {
    headers["x-forwarded-host"] = forwardedClient.host;
    headers["x-forwarded-proto"] = forwardedClient.proto;
  }
  return { headers, priority, allowStale };
}

/** Builds the request; throws AO_ERR_READ_ONLY (HTTP 403) for a write on a read-only session. */
export function buildApiRequest(
  input: ApiRequestInput,
  classify: (input: ClassifyInput) => RequestClass,
): GhRequest {
  const asked = requestHeaders(input.headers ?? {}, input.forwardedClient);
  const headers = asked.headers;
  if (input.graphql && !headers["content-type"]) headers["content-type"] = "application/json";
  const method = input.method.toUpperCase();
  const body =
    input.body && input.body.length > 0
      ? input.body
      : input.graphql
        ? Buffer.from(
            JSON.stringify({
              query: input.graphql.query,
              variables: input.graphql.variables,
              ...(input.graphql.operationName ? { operationName: input.graphql.operationName } : {}),
            }),
          )
        : undefined;
  const classification = classify({
    method,
    path: input.path,
    headers,
    graphql: input.graphql,
    // What a REST write changes may depend on its body (PATCH pulls/N naming a new base).
    ...(input.graphql || !input.body ? {} : { body: input.body }),
  });
  const isWrite = classification.kind === "rest-write" || classification.kind === "graphql-mutation";
  if (isWrite && input.caller.readOnly) {
    throw new AoError(BrokerErrors.AO_ERR_READ_ONLY, READ_ONLY_MESSAGE, { httpStatus: 403 });
  }
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
    priority:
      input.priority ?? (isWrite ? "write" : asked.priority === "background" ? "background" : "interactive"),
    deadlineAt: now + input.deadlineMs,
    allowStale: input.allowStale ?? asked.allowStale,
    receivedAt: now,
  };
}
